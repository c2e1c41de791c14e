#!/usr/bin/env python3
"""Checks tests/check_sizes.py on made-up trees: it fails on a file over 500 lines or a function over 150
anywhere, and passes exactly at the limits."""
import pathlib
import subprocess
import sys
import tempfile

CHECK = pathlib.Path(__file__).resolve().parent / "check_sizes.py"


def run(root):
    r = subprocess.run([sys.executable, str(CHECK), str(root)], capture_output=True, text=True)
    return r.returncode, r.stdout


def write(root, rel, text):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def function(lines):
    """A function whose body is `lines` lines between its braces."""
    return "int f(int x) {\n" + "    x += 1;\n" * lines + "}\n"


def expect(root, rc, listed, unlisted=()):
    got_rc, out = run(root)
    assert got_rc == rc, f"{root}: exit {got_rc}, wanted {rc}:\n{out}"
    for text in listed:
        assert text in out, f"{root}: {text!r} not in:\n{out}"
    for text in unlisted:
        assert text not in out, f"{root}: {text!r} in:\n{out}"


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        at_limit = tmp / "at_limit"
        write(at_limit, "app/a.cpp", "// line\n" * 500)
        write(at_limit, "render/b.cpp", function(150))
        expect(at_limit, 0, [])

        long_file = tmp / "long_file"
        write(long_file, "app/viewer/a.cpp", "// line\n" * 501)
        expect(long_file, 1, ["app/viewer/a.cpp:1: 501 lines"])

        long_function = tmp / "long_function"
        write(long_function, "kernels/b.cu", "\n" + function(151))
        expect(long_function, 1, ["kernels/b.cu:2: function f: 151 lines"])

        # No path is exempt: the files once split under issue 29 are held to the limits like any other.
        exempt = tmp / "exempt"
        write(exempt, "app/pkrt_main.cpp", "// line\n" * 501)
        expect(exempt, 1, ["app/pkrt_main.cpp:1: 501 lines"])
    print("check_sizes_test: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
