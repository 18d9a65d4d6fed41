"""What the table generators in this folder share: a row as validation's YAML lists it, and a file
written whole (to a temporary name beside it, then renamed over it) or not at all."""
import os


def row(fields):
    """`fields`: (key, value) pairs, the first the row's id, each value as it is to appear."""
    (key, value), rest = fields[0], fields[1:]
    return f"  - {key}: {value}\n" + "".join(f"    {k}: {v}\n" for k, v in rest)


def write_whole(path, text):
    temporary = path + ".tmp"
    with open(temporary, "w") as f:
        f.write(text)
    os.replace(temporary, path)
