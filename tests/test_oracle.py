"""The combo language against Python itself: random expressions of the grammar, parsed and
evaluated by coscore, give what CPython's own evaluator gives for the same text (the oracle
runs only in this test, on expressions the test generated — never on rule text)."""
from __future__ import annotations

import math

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import coscore
from coscore.expr.evaluate import Answer, compile_tree
from coscore.expr.parse import parse
from coscore.expr.tokens import ExprSyntaxError
from support import examples

BLANKS = ["爱国 2", "", "null", "3.5"]
RULE = coscore.compile({
    "atoms": {"0": {"type": "SM", "desc": "爱,国|2"}, "1": {"type": "OP", "desc": "0.3:爱国,3.5"}},
    "combos": {},
    "comboMode": "ADD",
})


def _oracle_functions() -> dict:
    """The operators as the original engine defines them (without its per-answer caches)."""
    def blank(n):
        return "".join(BLANKS) if n == "*" else BLANKS[n]

    def f(n):
        text = blank(n)
        if text == "null":
            return 0
        try:
            return float(text)
        except ValueError:
            return 0

    return {
        "T": blank,
        "L": lambda n: len({c for c in blank(n) if "\u4e00" <= c <= "\u9fa5"}),
        "Q": lambda n: sum(1 for b in BLANKS if b not in ("", "null")) if n == "*" else blank(n) in ("", "null"),
        "F": f,
        "S": lambda n: max(1, len(blank(n))),
        "G": lambda k, s: RULE.atoms[str(k)](s)[0],
        "M": lambda k, s: RULE.atoms[str(k)](s)[1],
        "U": lambda v, c: c if v >= c else v,
        "A": lambda *args: sum(1 for a in args if a),
        "X": lambda *args: max(args),
    }


_LEAVES = st.sampled_from([
    "0", "1", "2", "-1", "0.5", "1e3", "True", "False", "'爱'", '"a"', "''",
    "T(0)", "T(1)", "T(-1)", "T('*')", "T(3)", "L(0)", "L('*')", "Q(1)", "Q('*')", "F(3)", "F(0)",
    "S(0)", "S('*')", "M(0, T(0))", "G(0, T(2))", "M(1, T('*'))", "G(1, '爱国')", "M(0, T(0) + T(3))",
    "0x1F", "1_000", ".5", "5.", "1e-2", "0o17", "0b101", "'\\u7231'", "'a' 'b'", "r'\\n'", "'\\x41\\N{BULLET}'",
    "+True", "--1", "- -0.0", "(T(0))", "G('0', T(0))", "L(-1)", "Q(-2)",
    "T(0) * 2", "2 * T(0)", "Q(0) * T(0)", "T(1) * -3", "True * '爱'", "T(0) * 2.0", "'a' * 'b'", "(T(3) * 3)",
    "'''a\rb'''", "'''a\r\nb'''", "'a\\\r\nb'", "r'''\\\rb'''",
    "Ｔ(0)", "Ｍ(0, T(0))", "Ｔｒｕｅ", "ｎｏｔ 1",
])
# Layout around a whole expression, and inside its brackets, as a text box or a file may give it.
_PREFIXES = st.sampled_from(["", " ", "\t", "\n", "\r\n", "\r", "# c\n", "\n  \n", "\\\n", "\f", "\n ", "\\\n ", " \f "])
_SUFFIXES = st.sampled_from(["", " ", "\n", "\r\n", "\r", "\n\n", " # c", "# c\n", "\n  ", "\n  \n", "\n\f", " \\\n", "\n1", "\t\n"])
_INSIDE = st.sampled_from([" ", "\n", "\r\n", " # c\n", "\\\n", "\n\n  ", "\\\r\n   "])


def _expressions():
    def extend(children):
        binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "==", "!=", "<", "<=", ">", ">=", "and", "or"]), children)
        return st.one_of(
            binary.map(lambda t: f"{t[0]} {t[1]} {t[2]}"),
            binary.map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
            st.tuples(children, _INSIDE, children).map(lambda t: f"({t[0]}{t[1]}+ {t[2]})"),
            st.tuples(children, _INSIDE, children).map(lambda t: f"{t[0]} *{t[1]}{t[2]}"),
            st.tuples(children, children, children).map(lambda t: f"{t[0]} if {t[1]} else {t[2]}"),
            st.tuples(children, children, children).map(lambda t: f"({t[0]} < {t[1]} <= {t[2]})"),
            children.map(lambda c: f"not {c}"),
            children.map(lambda c: f"-({c})"),
            st.tuples(children, children).map(lambda t: f"U({t[0]}, {t[1]})"),
            st.lists(children, min_size=1, max_size=3).map(lambda cs: f"X({', '.join(cs)})"),
            st.lists(children, max_size=3).map(lambda cs: f"A({', '.join(cs)})"),
        )

    laid_out = st.tuples(_PREFIXES, st.recursive(_LEAVES, extend, max_leaves=8), _SUFFIXES)
    return laid_out.map("".join)


def _outcome(function):
    try:
        return "value", function()
    except Exception as exc:  # noqa: BLE001 - any error is an outcome to compare
        return "error", exc


def _same(ours, theirs) -> bool:
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours) and math.isnan(theirs):
        return True
    return (ours == theirs and type(ours) is type(theirs)) or (ours == theirs and not isinstance(ours, str))


@settings(max_examples=examples(600), deadline=None)
@given(_expressions())
@example("not -((-(True) < -(1) <= ''))")  # a folded constant once freed an id the chain check reused
@example("(1 < 2) < 3 < (4 < 5)")
@example("G(0, T(0))\n")
@example("\\\n T(0) * 2")
def test_random_expressions_evaluate_as_python_does(text):
    namespace = {"__builtins__": {}, **_oracle_functions()}
    try:  # the test's own text: is it Python at all? (eval drops leading spaces and tabs first)
        code = compile(text.lstrip(" \t"), "<generated>", "eval")
    except SyntaxError:
        with pytest.raises(ExprSyntaxError):
            parse(text, set(RULE.atoms))
        return
    try:
        tree = parse(text, set(RULE.atoms))
    except ExprSyntaxError:  # only for names Python could not find either: 'Ｔｒｕｅ' is the name 'True'
        assert set(code.co_names) - set(namespace), text
        return
    evaluate = compile_tree(tree)
    ours = _outcome(lambda: evaluate(Answer(list(BLANKS), RULE.atoms)))
    theirs = _outcome(lambda: eval(code, namespace))  # noqa: S307 - the test's own generated text
    assert ours[0] == theirs[0], (text, ours, theirs)
    if ours[0] == "value":
        assert _same(ours[1], theirs[1]), (text, ours[1], theirs[1])
    else:
        assert type(ours[1]).__mro__[0] in type(theirs[1]).__mro__ or isinstance(ours[1], type(theirs[1])), (text, ours[1], theirs[1])
