#!/usr/bin/env python3
"""Reports source files over 500 lines and functions over 150 lines (issue #29's house rules).

Usage: tests/check_sizes.py [--max-file N] [--max-function N] [ROOT]
Scans .cpp, .h, .cu and .cuh under app/, render/ and kernels/ of ROOT (default: the checkout). Exits 1
when it finds anything, listing each as PATH:LINE: what. Functions are found by a brace-matching
heuristic: comments, strings and preprocessor lines are blanked first, a `{` at namespace or class scope
whose header ends in `)` (then const/override/noexcept/-> type) opens a function, and its length is the
lines between its braces. Structs, classes, enums, namespaces and initialiser braces are scopes, not
functions; lambdas and blocks inside a function count as part of it.
"""
import argparse
import pathlib
import re
import sys

EXTENSIONS = {".cpp", ".h", ".cu", ".cuh"}
FOLDERS = ("app", "render", "kernels")
SCOPE = re.compile(r"\b(struct|class|union|enum|namespace)\b|extern\s*\"C\"")
FUNCTION_TAIL = re.compile(r"\)\s*((const|override|final|noexcept(\s*\([^)]*\))?|mutable|volatile|&|&&)\s*)*"
                           r"(->\s*[\w:<>,\s*&]+)?\s*$")
CONTROL = re.compile(r"^\s*(if|for|while|switch|catch|do|else|try)\b")


def blank(text):
    """Comments, string and character literals and preprocessor lines as spaces, newlines kept."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                out.append("\n" if text[i] == "\n" else " ")
                i += 1
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.extend("\n" if ch == "\n" else " " for ch in text[i:j])
            i = j
        elif c == "R" and text.startswith('R"', i):  # raw string R"delim( ... )delim"
            k = text.find("(", i)
            delim = ")" + text[i + 2:k] + '"'
            j = text.find(delim, k)
            j = n if j < 0 else j + len(delim)
            out.append('""')
            out.extend("\n" if ch == "\n" else " " for ch in text[i + 2:j])
            i = j
        elif c in "\"'" and not (c == "'" and i > 0 and text[i - 1].isalnum()):  # not a digit separator
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            out.extend(" " for _ in range(i + 2, j + 1))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_template(header):
    """The header without its `template <...>` prefixes (whose default arguments hold `=`)."""
    h = header.strip()
    while h.startswith("template"):
        k = h.find("<")
        if k < 0:
            break
        depth, j = 0, k
        while j < len(h):
            depth += {"<": 1, ">": -1}.get(h[j], 0)
            if depth == 0:
                break
            j += 1
        h = h[j + 1:].strip()
    return h


def functions(text):
    """(first line, body lines, header) of every function at namespace or class scope."""
    code = blank(text)
    stack = []  # per open brace: "scope", "function" or "block"
    starts = []
    found = []
    header_start = 0
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            header = code[header_start:i]
            at_scope = all(kind == "scope" for kind in stack)
            signature = strip_template(header)
            if at_scope and FUNCTION_TAIL.search(signature) and not CONTROL.match(signature) and \
                    "=" not in signature.split("(")[0]:
                kind = "function"
            elif at_scope and SCOPE.search(signature):
                kind = "scope"
            else:
                kind = "block"
            stack.append(kind)
            starts.append((line, " ".join(header.split())))
            header_start = i + 1
        elif c == "}":
            if stack:
                kind = stack.pop()
                first, header = starts.pop()
                if kind == "function":
                    found.append((first, max(0, line - first - 1), header))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("root", nargs="?", default=str(pathlib.Path(__file__).resolve().parent.parent))
    ap.add_argument("--max-file", type=int, default=500)
    ap.add_argument("--max-function", type=int, default=150)
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    problems = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in EXTENSIONS or not path.is_file():
                continue
            rel = path.relative_to(root)
            text = path.read_text(encoding="utf-8", errors="replace")
            lines = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
            if lines > args.max_file:
                problems.append(f"{rel}:1: {lines} lines (at most {args.max_file})")
            for first, body, header in functions(text):
                if body > args.max_function:
                    name = re.sub(r"\s*\(.*", "", header).split()[-1] if header else "?"
                    problems.append(f"{rel}:{first}: function {name}: {body} lines (at most {args.max_function})")
    for p in problems:
        print(p)
    if problems:
        print(f"check_sizes: {len(problems)} over the limits", file=sys.stderr)
        return 1
    print("check_sizes: every file and function within the limits", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
