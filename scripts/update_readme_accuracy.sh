#!/usr/bin/env bash
# Rewrites README's accuracy table from `simgpt validate --format markdown`.
set -euo pipefail
cd "$(dirname "$0")/.."
table=$(build/simgpt validate --format markdown)
python3 - "$table" <<'PY'
import re, sys
text = open('README.md').read()
new = '<!-- accuracy:begin -->\n' + sys.argv[1] + '\n<!-- accuracy:end -->'
text = re.sub(r'<!-- accuracy:begin -->.*?<!-- accuracy:end -->', lambda m: new, text, flags=re.S)
open('README.md', 'w').write(text)
PY
