"""Signed documents: a signature holds for exactly the document signed, under a published
key; any change to any field, a key the server does not publish, or another algorithm is
refused with a sentence."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from protocol.signing import Signer, key_id, signature_problem, signed_bytes

SIGNER = Signer.new()
PUBLISHED = {SIGNER.key_id: SIGNER.public_hex}

values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
documents = st.dictionaries(
    st.text(max_size=8).filter(lambda k: k != "signature"), values, max_size=6
)


@given(documents)
def test_a_signed_document_checks_under_the_published_key(document: dict[str, Any]) -> None:
    signed = SIGNER.sign(document)
    assert signature_problem(signed, PUBLISHED) is None
    assert {k: v for k, v in signed.items() if k != "signature"} == document


@given(documents, st.text(min_size=1, max_size=8).filter(lambda k: k != "signature"), values)
def test_any_changed_or_added_field_breaks_the_signature(
    document: dict[str, Any], field: str, value: object
) -> None:
    signed = SIGNER.sign(document)
    if field in document and document[field] == value and type(document[field]) is type(value):
        return  # not a change
    changed = {**signed, field: value}
    assert signature_problem(changed, PUBLISHED) == (
        "its signature does not match its contents: it was changed after signing"
    )


def test_the_signed_bytes_are_canonical_json_whatever_the_key_order() -> None:
    one = {"b": [1, "é"], "a": None, "signature": {"x": 1}}
    other = {"a": None, "b": [1, "é"]}
    assert (
        signed_bytes(one)
        == signed_bytes(other)
        == 'solrace-signed-v1\n{"a":null,"b":[1,"é"]}'.encode()
    )


def test_an_unsigned_a_foreign_key_and_another_algorithm_are_refused() -> None:
    document = {"race": "r1"}
    assert signature_problem(document, PUBLISHED) == "it carries no signature"
    stranger = Signer.new().sign(document)
    assert "which the server does not publish" in str(signature_problem(stranger, PUBLISHED))
    forged = {**SIGNER.sign(document)}
    forged["signature"] = {**forged["signature"], "algorithm": "rsa"}
    assert signature_problem(forged, PUBLISHED) == "its signature's algorithm is not ed25519"
    garbled = SIGNER.sign(document)
    garbled["signature"] = {**garbled["signature"], "value": "zz"}
    assert "changed after signing" in str(signature_problem(garbled, PUBLISHED))


def test_a_key_is_named_by_its_public_key_and_survives_hex() -> None:
    again = Signer.from_hex(SIGNER.private_hex)
    assert again.key_id == SIGNER.key_id == key_id(SIGNER.public_hex) and len(again.key_id) == 16
    assert signature_problem(again.sign({"a": 1}), PUBLISHED) is None
