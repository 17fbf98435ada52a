"""Splitting combo text into tokens, with Python's rules for numbers, strings and names.

The tokenizer is a single linear pass (no recursion), so it is safe on any input; it
refuses what the rule language does not have (bytes, f-strings, complex numbers) with a
:class:`ExprSyntaxError` that carries the 1-based column.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

#: Integer literals longer than this are refused (CPython's int/str conversion limit).
MAX_INT_DIGITS = 4300


class ExprSyntaxError(Exception):
    """A problem in combo text at a 1-based ``column``."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # "num" | "str" | "name" | "op" | "end"
    text: str  # the operator or (normalised) name; the source text for literals
    value: object
    col: int  # 1-based column of the token's first character


_DIGITS = r"[0-9](?:_?[0-9])*"
_EXPONENT = rf"[eE][-+]?{_DIGITS}"
_NUMBER = re.compile(
    rf"""
    (?P<radix>0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+)
  | (?P<float>(?:{_DIGITS})?\.{_DIGITS}(?:{_EXPONENT})?|{_DIGITS}\.(?:{_EXPONENT})?|{_DIGITS}{_EXPONENT})
  | (?P<int>{_DIGITS})
    """,
    re.VERBOSE,
)
_NAME = re.compile(r"[^\W\d]\w*")
_OPERATORS = (
    "**", "//", "==", "!=", "<=", ">=", "<<", ">>", ":=", "->",
    "(", ")", ",", "+", "-", "*", "/", "<", ">", "%", "@", "&", "|", "^", "~",
    ".", "[", "]", "{", "}", ":", ";", "=", "!",
)
_STRING_PREFIXES = {"r", "u", "R", "U", "b", "B", "f", "F", "br", "rb", "fr", "rf"}
_SIMPLE_ESCAPES = {
    "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f",
    "n": "\n", "r": "\r", "t": "\t", "v": "\v",
}
_HEX = frozenset("0123456789abcdefABCDEF")


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an ``end`` token; adjacent strings are joined."""
    tokens: list[Token] = []
    depth = 0
    pos, n = 0, len(text)
    while pos < n:
        ch = text[pos]
        col = pos + 1
        if ch in " \t\f":
            pos += 1
        elif ch in "\r\n":
            if depth <= 0:
                raise ExprSyntaxError("line break outside parentheses", col)
            pos += 1
        elif ch == "\\" and text[pos + 1 : pos + 2] in ("\n", "\r"):
            pos += 2
        elif ch == "#":
            end = text.find("\n", pos)
            pos = n if end < 0 else end
        elif "0" <= ch <= "9" or (ch == "." and "0" <= text[pos + 1 : pos + 2] <= "9" and pos + 1 < n):
            pos = _number(text, pos, tokens)
        elif ch in "'\"":
            pos = _string(text, pos, "", tokens)
        elif _NAME.match(text, pos):
            match = _NAME.match(text, pos)
            raw = match.group()
            if raw in _STRING_PREFIXES and text[match.end() : match.end() + 1] in ("'", '"'):
                pos = _string(text, match.end(), raw, tokens)
                continue
            name = raw if raw.isascii() else unicodedata.normalize("NFKC", raw)
            if not name.isidentifier():
                raise ExprSyntaxError(f"invalid character in name {raw!r}", col)
            tokens.append(Token("name", name, None, col))
            pos = match.end()
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, pos)), None)
            if op is None:
                raise ExprSyntaxError(f"unexpected character {ch!r} (U+{ord(ch):04X})", col)
            depth += op in "([{"
            depth -= op in ")]}"
            tokens.append(Token("op", op, None, col))
            pos += len(op)
    tokens.append(Token("end", "", None, n + 1))
    return tokens


def _number(text: str, pos: int, tokens: list[Token]) -> int:
    match = _NUMBER.match(text, pos)
    literal = match.group()
    end = match.end()
    col = pos + 1
    if text[end : end + 1] in ("j", "J"):
        raise ExprSyntaxError("complex numbers are not in the rule language", col)
    if match.group("float") is not None:
        value: object = float(literal)
    elif match.group("radix") is not None:
        value = int(literal, 0)
    else:
        digits = literal.replace("_", "")
        if len(digits) > MAX_INT_DIGITS:
            raise ExprSyntaxError(f"integer literal has more than {MAX_INT_DIGITS} digits", col)
        if len(digits) > 1 and digits[0] == "0" and digits.strip("0"):
            raise ExprSyntaxError("leading zeros in decimal integers are not allowed", col)
        value = int(digits)
    tokens.append(Token("num", literal, value, col))
    return end


def _string(text: str, pos: int, prefix: str, tokens: list[Token]) -> int:
    """Scan the string literal whose opening quote is at ``pos``; return the position after it."""
    col = pos + 1 - len(prefix)
    lowered = prefix.lower()
    if "b" in lowered:
        raise ExprSyntaxError("bytes literals are not in the rule language", col)
    if "f" in lowered:
        raise ExprSyntaxError("f-strings are not in the rule language", col)
    quote = text[pos] * 3 if text.startswith(text[pos] * 3, pos) else text[pos]
    start = pos + len(quote)
    i, n = start, len(text)
    while True:
        if i >= n:
            raise ExprSyntaxError("unterminated string", col)
        ch = text[i]
        if ch == "\\":
            i += 2
        elif text.startswith(quote, i):
            break
        elif ch in "\r\n" and len(quote) == 1:
            raise ExprSyntaxError("unterminated string", col)
        else:
            i += 1
    body = text[start:i]
    value = body if "r" in lowered else _unescape(body, start + 1)
    if tokens and tokens[-1].kind == "str":  # implicit concatenation: 'a' 'b' == 'ab'
        previous = tokens.pop()
        value = previous.value + value
        col = previous.col
    tokens.append(Token("str", text[col - 1 : i + len(quote)], value, col))
    return i + len(quote)


def _unescape(body: str, col: int) -> str:
    """Decode Python's backslash escapes in a non-raw string body starting at ``col``."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i, n = 0, len(body)
    while i < n:
        ch = body[i]
        if ch != "\\" or i + 1 >= n:
            out.append(ch)
            i += 1
            continue
        esc = body[i + 1]
        here = col + i
        if esc in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[esc])
            i += 2
        elif esc in "\r\n":
            i += 3 if body[i + 1 : i + 3] == "\r\n" else 2
        elif esc in "01234567":
            j = i + 1
            while j < n and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(chr(int(body[i + 1 : j], 8)))
            i = j
        elif esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not set(digits) <= _HEX:
                raise ExprSyntaxError(f"truncated \\{esc} escape in string", here)
            code = int(digits, 16)
            if code > 0x10FFFF:
                raise ExprSyntaxError(f"illegal Unicode character \\{esc}{digits} in string", here)
            out.append(chr(code))
            i += 2 + width
        elif esc == "N":
            end = body.find("}", i)
            if body[i + 2 : i + 3] != "{" or end < 0:
                raise ExprSyntaxError("malformed \\N{...} escape in string", here)
            try:
                out.append(unicodedata.lookup(body[i + 3 : end]))
            except KeyError:
                raise ExprSyntaxError(f"unknown Unicode character name {body[i + 3 : end]!r}", here) from None
            i = end + 1
        else:  # Python keeps unknown escapes as they are
            out.append("\\" + esc)
            i += 2
    return "".join(out)
