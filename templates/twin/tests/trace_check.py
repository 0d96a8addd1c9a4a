# Structural check of a twin trace, mirroring what the Rust model's parser requires: header, block
# framing, known pipes, key=value records, DMA bytes=, and every `wait` paired with an earlier `set`
# of the same (src, dst, key) in the same block. Usage: trace_check.py <trace> [...]
import sys
from collections import defaultdict, deque

PIPES = {"MTE2", "MTE3", "V", "S", "MTE1", "M", "FIX"}

def check(path):
    lines = open(path).read().splitlines()
    assert lines and lines[0] in ("twin-trace 1", "twin-trace 2", "twin-trace 3", "twin-trace 4", "twin-trace 5", "twin-trace 6"), f"{path}: bad header"
    open_block, pending, seen, dim = None, None, set(), None
    for no, raw in enumerate(lines[1:], start=2):
        t = raw.split()
        if not t:
            continue
        k = t[0]
        where = f"{path}:{no}: {raw}"
        if k == "block":
            assert open_block is None and len(t) == 3, where
            idx, bd = int(t[1]), int(t[2])
            assert 0 <= idx < bd and (dim is None or dim == bd) and idx not in seen, where
            dim, open_block, pending = bd, idx, defaultdict(deque)
            seen.add(idx)
        elif k == "end":
            assert open_block is not None and len(t) == 1, where
            open_block = None
        elif k == "I":
            assert open_block is not None and t[1] in PIPES and len(t) >= 3, where
            kv = dict(x.split("=", 1) for x in t[3:])
            for v in kv.values():
                int(v)
            if t[1] in ("MTE2", "MTE3"):
                assert "bytes" in kv, where
        elif k in ("set", "wait"):
            assert open_block is not None and len(t) == 4 and t[1] in PIPES and t[2] in PIPES, where
            key = (t[1], t[2], t[3])
            if k == "set":
                pending[key].append(no)
            else:
                assert pending[key], f"unpaired wait: {where}"
                pending[key].popleft()
        elif k == "carve":
            # carve <hw> <addr> <len> <num> line=<L> file=<F> (version 5; the file runs to the line's end)
            assert open_block is not None and len(t) >= 7 and t[5].startswith("line=") and t[6].startswith("file="), where
            for v in t[2:5] + [t[5][5:]]:
                int(v)
        elif k == "barrier":
            assert open_block is not None and len(t) == 2 and (t[1] in PIPES or t[1] in ("ALL", "NONE")), where
        else:
            raise AssertionError(f"unknown record: {where}")
    assert open_block is None, f"{path}: unterminated block"
    return len(lines)

if __name__ == "__main__":
    for p in sys.argv[1:]:
        check(p)
    print(f"  ok: {len(sys.argv) - 1} trace(s) pass the structural check (pairing, pipes, keys)")
