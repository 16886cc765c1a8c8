"""The tokenizers the language models' checkpoints come with, read by Hugging Face's
``tokenizers`` package (an optional dependency): GPT-2's byte-level BPE and BERT's
WordPiece.

Each loader takes a checkpoint directory and prefers its ``tokenizer.json`` (the whole
pipeline as the checkpoint's authors saved it); without one it builds the pipeline from
the vocabulary files: ``vocab.json`` and ``merges.txt`` for GPT-2, ``vocab.txt`` for
BERT (lower-cased, accents stripped, ``[CLS] ... [SEP]`` around a sentence, as
``bert-base-uncased``). The result is a ``tokenizers.Tokenizer``: ``encode(text).ids``,
``decode(ids)``.
"""

from __future__ import annotations

import os

from ..errors import ArgumentError

__all__ = ["gpt2_tokenizer", "bert_tokenizer"]


def _package():
    try:
        import tokenizers
    except ImportError as e:
        raise ArgumentError(
            "lucid.models.tokenizers needs the tokenizers package: pip install tokenizers"
        ) from e
    return tokenizers


def _saved(path, tk):
    full = os.path.join(path, "tokenizer.json")
    return tk.Tokenizer.from_file(full) if os.path.exists(full) else None


def _need(path, *names):
    for n in names:
        if not os.path.exists(os.path.join(path, n)):
            raise ArgumentError(
                f"tokenizer: {path!r} holds neither tokenizer.json nor {' and '.join(names)}"
            )


def gpt2_tokenizer(path):
    """GPT-2's byte-level BPE tokenizer of the checkpoint directory ``path``."""
    tk = _package()
    tok = _saved(path, tk)
    if tok is None:
        _need(path, "vocab.json", "merges.txt")
        tok = tk.ByteLevelBPETokenizer(
            os.path.join(path, "vocab.json"), os.path.join(path, "merges.txt")
        )
    return tok


def bert_tokenizer(path, lowercase=True):
    """BERT's WordPiece tokenizer of the checkpoint directory ``path`` (``[CLS]`` and
    ``[SEP]`` added around each text)."""
    tk = _package()
    tok = _saved(path, tk)
    if tok is None:
        _need(path, "vocab.txt")
        tok = tk.BertWordPieceTokenizer(
            os.path.join(path, "vocab.txt"), lowercase=lowercase, strip_accents=lowercase
        )
    return tok
