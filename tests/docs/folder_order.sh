#!/usr/bin/env bash
# The library's folders in the pipeline's order, as README's "How it models a step" lists them:
# each folder (its sources in src/ and headers in include/simgpt/) includes only folders listed
# before it. A new folder must be listed; an include that points back up fails.
set -u
. "$(dirname "$0")/../support/checks.sh"
order=($(sed -n '/^| folder | stage |/,/^$/p' README.md | grep -o '^| `[a-z_]*/`' | tr -d '|` /'))
check "README lists the folders (got ${#order[@]})" [ "${#order[@]}" -ge 10 ]
for dir in src/*/; do
  name=$(basename "$dir")
  check "src/$name is listed in README's folder table" bash -c "printf '%s\n' ${order[*]} | grep -qx $name"
done
for ((i = 0; i < ${#order[@]}; i++)); do
  folder=${order[$i]}
  allowed=" ${order[*]:0:$i} $folder "
  # Folders named by includes: "simgpt/FOLDER/x.hpp", "FOLDER/x.hpp" (internal), and the front
  # door "simgpt/simulate.hpp".
  used=$(grep -rhoE '#include "(simgpt/)?[a-z_]+(/|\.hpp)' "src/$folder" "include/simgpt/$folder" 2>/dev/null |
         sed -E 's/#include "(simgpt\/)?//; s/(\/|\.hpp)$//' | sort -u)
  for other in $used; do
    case "$allowed" in
      *" $other "*) ;;
      *) echo "FAIL: $folder includes $other, which is not before it in the pipeline's order"; fail=1 ;;
    esac
  done
done
exit $fail
