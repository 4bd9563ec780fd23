"""Every edit of an evidence bundle that a forger holding it can make while keeping the hashes consistent.

A bundle is held as its files by relative path (bytes). A :class:`Mutation`
names one edit: the bundle, the file, the kind, the JSON path and a variant
number; :func:`apply` makes it and then **rehashes** (:func:`rehash`): the
manifest's ``files`` listing becomes exactly the files present with their
SHA-256, and the model's and each external data file's ``sha256`` and
``size`` follow, written in the bundle's own JSON style. Hashing alone then
never catches an edit. An edit of the manifest's own content is not rehashed
(the other files did not change, so their hashes still hold, and a rehash
would undo an edit of the hashes themselves or of a duplicated key).

Kinds:

* every file (the manifest too): ``byte`` (one byte changed, three offsets),
  ``truncate`` (the first half; the last byte dropped), ``delete``,
  ``duplicate`` (the same bytes under another name), ``extra`` (a new file
  of the same type beside it), ``lookalike-rename`` and ``lookalike-add``
  (the file renamed to, or copied under, a name that looks the same:
  Cyrillic U+0435/U+0430/U+043E for e/a/o, a trailing space, the first letter's case
  swapped, the other Unicode normal form when it differs);
* the model, its external data and the inputs file are the subject of the
  check: their bytes get ``subject-byte`` (three offsets) and
  ``subject-truncate`` instead of ``byte`` and ``truncate``;
* every JSON file, at every path: see :mod:`tests.fuzz.evidence_json`;
* ``.smt2`` files: ``smt-answer`` (the expected-answer header, the
  holds-when header, or both flipped between sat and unsat) and
  ``smt-assert`` (``(assert false)`` or ``(assert true)`` before the last
  ``(check-sat)``);
* ``report.html``: ``text-vocab`` (the first, or every, occurrence of a
  verdict word swapped, e.g. VIOLATED for PROVED).

Mutation order (:func:`seeded_order`) depends only on the seed: each group
of one kind and one kind of file is shuffled, and the groups are taken in
turn, so a short run covers every kind.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from tests.fuzz import evidence_json as ej

MANIFEST = "manifest.json"
SUBJECT_PREFIXES = ("model/", "inputs/")
NAME_KINDS = ("delete", "duplicate", "extra", "lookalike-rename", "lookalike-add")
MANIFEST_CONTENT = ("byte", "truncate")
OFFSETS = 3
WORDS = re.compile(r"\b(" + "|".join(sorted((re.escape(w) for w in ej.VOCABULARY), key=len, reverse=True)) + r")\b")


@dataclass(frozen=True)
class Mutation:
    """One edit of one bundle (deterministic given ``seed``)."""

    bundle: str
    file: str
    kind: str
    path: ej.Path_ = ()
    variant: int = 0
    seed: int = 0

    @property
    def id(self) -> str:
        at = ej.pointer(self.path) if self.path else ""
        return f"{self.bundle}:{self.file}:{self.kind}{at}" + (f"#{self.variant}" if self.variant else "")

    @property
    def subject(self) -> bool:
        """Whether the edit changes the bytes of the checked model or its inputs (the subject, not a claim)."""
        return self.kind.startswith("subject-")

    @property
    def rehashed(self) -> bool:
        return not (self.file == MANIFEST and (self.kind in MANIFEST_CONTENT or self.kind.startswith("json-")))


def is_subject(rel: str) -> bool:
    return rel.startswith(SUBJECT_PREFIXES)


def file_class(rel: str) -> str:
    """The kind of file ``rel`` is, for grouping: obligation files and copies of the subject by folder."""
    if rel.endswith(".smt2"):
        return "smt/*.smt2"
    if is_subject(rel):
        return rel.split("/", 1)[0] + "/*"
    return rel


def lookalikes(name: str) -> list[tuple[str, str]]:
    """(label, name) pairs: names that look like ``name`` but are other strings."""
    out = []
    for latin, cyrillic in (("e", "\u0435"), ("a", "\u0430"), ("o", "\u043e")):
        if latin in name:
            out.append((f"Cyrillic {cyrillic} for {latin}", name.replace(latin, cyrillic, 1)))
    out.append(("trailing space", name + " "))
    first = next((i for i, c in enumerate(name) if c.isalpha()), None)
    if first is not None:
        out.append(("case", name[:first] + name[first].swapcase() + name[first + 1:]))
    for form in ("NFD", "NFC"):
        other = unicodedata.normalize(form, name)
        if other != name:
            out.append((form, other))
    return out


def _renamed(rel: str, new_base: str) -> str:
    head, _, _base = rel.rpartition("/")
    return f"{head}/{new_base}" if head else new_base


def _sibling(rel: str, tag: str) -> str:
    base = rel.rpartition("/")[2]
    stem, dot, suffix = base.partition(".")
    return _renamed(rel, f"{stem}-{tag}{dot}{suffix}")


def _extra_content(rel: str) -> bytes:
    if rel.endswith(".json"):
        return b"{}\n"
    if rel.endswith(".smt2"):
        return b"; expected answer: unsat\n(set-logic QF_UF)\n(assert false)\n(check-sat)\n"
    if rel.endswith(".html"):
        return b"<!doctype html><p>PROVED</p>\n"
    return b"\x00extra\n"


def mutations(bundle: str, files: dict[str, bytes], seed: int) -> Iterator[Mutation]:
    """Every mutation of ``bundle`` (its ``files``), in document order."""
    for rel in sorted(files):
        data = files[rel]
        content = ("subject-byte", "subject-truncate") if is_subject(rel) else ("byte", "truncate")
        yield from (Mutation(bundle, rel, content[0], (), v, seed) for v in range(OFFSETS))
        yield from (Mutation(bundle, rel, content[1], (), v, seed) for v in range(2))
        for kind in NAME_KINDS:
            n = len(lookalikes(rel.rpartition("/")[2])) if kind.startswith("lookalike") else 1
            yield from (Mutation(bundle, rel, kind, (), v, seed) for v in range(n))
        if rel.endswith(".json"):
            tree = json.loads(data)
            yield from (Mutation(bundle, rel, k, p, v, seed) for k, p, v in ej.edits(tree))
        elif rel.endswith(".smt2"):
            yield from (Mutation(bundle, rel, "smt-answer", (), v, seed) for v in range(3))
            yield from (Mutation(bundle, rel, "smt-assert", (), v, seed) for v in range(2))
        elif rel.endswith(".html"):
            words = sorted(set(WORDS.findall(data.decode("utf-8"))))
            yield from (Mutation(bundle, rel, "text-vocab", (), v, seed) for v in range(2 * len(words)))


def seeded_order(all_mutations: list[Mutation], seed: int) -> list[Mutation]:
    """All mutations in the campaign's order: groups (kind, kind of file) shuffled, then taken in turn."""
    groups: dict[tuple[str, str], list[Mutation]] = {}
    for m in all_mutations:
        groups.setdefault((m.kind, file_class(m.file)), []).append(m)
    rng = random.Random(f"evidence-campaign:{seed}")
    keys = sorted(groups)
    rng.shuffle(keys)
    for k in keys:
        groups[k].sort(key=lambda m: m.id)  # the input's order does not matter, only the seed
        rng.shuffle(groups[k])
    out: list[Mutation] = []
    depth = 0
    while len(out) < len(all_mutations):
        out.extend(groups[k][depth] for k in keys if depth < len(groups[k]))
        depth += 1
    return out


def _offset(m: Mutation, size: int) -> int:
    return random.Random(f"{m.seed}:{m.id}").randrange(size) if size else 0


def _flip_answer(text: str, prefix: str) -> str:
    def swap(match: re.Match[str]) -> str:
        return match.group(1) + ("unsat" if match.group(2) == "sat" else "sat")

    return re.sub(rf"^({re.escape(prefix)}\s*)(sat|unsat|unknown)\b", swap, text, count=1, flags=re.M)


def _edit_text(m: Mutation, text: str) -> tuple[str, str]:
    if m.kind == "smt-answer":
        prefixes = ["; expected answer:", "; the property holds when the answer is:"]
        chosen = prefixes if m.variant == 2 else [prefixes[m.variant]]
        for p in chosen:
            text = _flip_answer(text, p)
        return text, "answer header(s) flipped: " + ", ".join(p.strip("; :") for p in chosen)
    if m.kind == "smt-assert":
        extra = "(assert false)" if m.variant == 0 else "(assert true)"
        k = text.rfind("(check-sat)")
        return (text[:k] + extra + "\n" + text[k:] if k >= 0 else text + extra + "\n"), f"{extra} added"
    words = sorted(set(WORDS.findall(text)))
    word = words[m.variant // 2]
    every = m.variant % 2 == 1
    new = re.sub(rf"\b{re.escape(word)}\b", ej.VOCABULARY[word], text, count=0 if every else 1)
    return new, f"{'every' if every else 'the first'} {word} replaced by {ej.VOCABULARY[word]}"


def _edit(m: Mutation, files: dict[str, bytes]) -> str:
    """Make the edit ``m`` in ``files`` (in place); its description."""
    rel = m.file
    data = files[rel]
    base = rel.rpartition("/")[2]
    if m.kind in ("byte", "subject-byte"):
        i = _offset(m, len(data))
        b = bytearray(data)
        if b:
            b[i] ^= 0x01
        files[rel] = bytes(b)
        return f"byte {i} of {len(data)} changed" if data else "empty file left alone"
    if m.kind in ("truncate", "subject-truncate"):
        files[rel] = data[: len(data) // 2] if m.variant == 0 else data[:-1]
        return "cut to its first half" if m.variant == 0 else "last byte dropped"
    if m.kind == "delete":
        del files[rel]
        return "deleted"
    if m.kind == "duplicate":
        files[_sibling(rel, "copy")] = data
        return f"copied to {_sibling(rel, 'copy')!r}"
    if m.kind == "extra":
        files[_sibling(rel, "extra")] = _extra_content(rel)
        return f"new file {_sibling(rel, 'extra')!r}"
    if m.kind in ("lookalike-rename", "lookalike-add"):
        label, name = lookalikes(base)[m.variant]
        new = _renamed(rel, name)
        files[new] = data
        if m.kind == "lookalike-rename":
            del files[rel]
            return f"renamed to {new!r} ({label})"
        return f"copied to {new!r} ({label})"
    if m.kind.startswith("json-"):
        files[rel], what = ej.apply_edit(data, m.kind, m.path, m.variant)
        return what
    text, what = _edit_text(m, data.decode("utf-8"))
    files[rel] = text.encode("utf-8")
    return what


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def rehash(files: dict[str, bytes]) -> None:
    """Make the manifest consistent with ``files`` (in place), as a careful forger would."""
    if MANIFEST not in files:
        return
    manifest = json.loads(files[MANIFEST])
    manifest["files"] = {rel: sha256(files[rel]) for rel in sorted(files) if rel != MANIFEST}
    model = manifest.get("model")
    if isinstance(model, dict):
        for entry in [model, *model.get("external_data", [])]:
            rel = entry.get("file")
            if isinstance(rel, str) and rel in files:
                entry["sha256"] = sha256(files[rel])
                entry["size"] = len(files[rel])
    files[MANIFEST] = ej.dump(manifest)


def apply(m: Mutation, clean: dict[str, bytes]) -> tuple[dict[str, bytes], str]:
    """The bundle ``clean`` after the edit ``m`` (rehashed unless the edit is of the manifest's content)."""
    files = dict(clean)
    what = _edit(m, files)
    if m.rehashed:
        rehash(files)
    return files, what

