# Capped text and JSON lines: every string that leaves a block's process is bounded here before anyone reads it.
import json, math, os, traceback

TAIL = 4000  # characters kept of a block's stdout/stderr and of an error message


def trim(text, keep=TAIL):
    """The last `keep` characters of `text`, with a count of what was dropped."""
    text = str(text)
    return text if len(text) <= keep else f"...[{len(text) - keep} chars omitted]\n" + text[-keep:]


def error_text(exc):
    """`Type: message` of an exception, capped; never the traceback (it quotes upstream source lines)."""
    return trim("".join(traceback.format_exception_only(type(exc), exc)).strip(), 1500)


class Tail:
    """Keeps the last TAIL bytes of a stream plus a count, so a flood of output costs no memory."""

    def __init__(self):
        self.buf, self.total = bytearray(), 0

    def add(self, chunk):
        self.total += len(chunk)
        self.buf += chunk
        if len(self.buf) > 2 * TAIL:
            del self.buf[: len(self.buf) - TAIL]

    def text(self):
        body = self.buf[-TAIL:].decode("utf-8", "replace")
        return body if self.total <= TAIL else f"...[{self.total - TAIL} bytes omitted]\n" + body


def write_all(fd, data):
    """os.write may write less than asked on a pipe; loop until all of it is out."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def sanitize(value):
    """JSON for JavaScript: non-finite floats become strings (JSON.parse rejects NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {str(k): sanitize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize(v) for v in value]
    return value


def json_line(obj):
    """One protocol line; `default=str` so an odd value in a record degrades to text instead of killing the sender."""
    return (json.dumps(obj, default=str) + "\n").encode()


class LineReader:
    """Lines from a raw fd, read only as far as asked. The worker must not buffer ahead: the seal line of a job
    (its token) must never be in memory before that job's child is forked, and a buffered reader could have read it
    along with the job line."""

    def __init__(self, fd):
        self.fd, self.buf = fd, b""

    def line(self):
        """The next line without its newline, as text; None at end of input."""
        while b"\n" not in self.buf:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8")
