"""lucid.models.tokenizers against transformers' own (pure-Python) GPT-2 and BERT
tokenizers on vocabularies made here: the same ids, and text back from them."""

import pytest

from lucid.errors import ArgumentError
from lucid.models import tokenizers as T

tokenizers = pytest.importorskip("tokenizers")
transformers = pytest.importorskip("transformers")

TEXT = ["The cat sat on the mat.", "A dog ran in the park!", "Héllo, wörld: naïve café"] * 10
PROBE = ["the cat ran on the park", "Héllo naïve dog", "unseen wörds, mat!"]


def test_gpt2_bpe_matches_transformers(tmp_path):
    bpe = tokenizers.ByteLevelBPETokenizer()
    bpe.train_from_iterator(TEXT, vocab_size=280, min_frequency=1, show_progress=False)
    bpe.save_model(str(tmp_path))
    ours = T.gpt2_tokenizer(str(tmp_path))
    ref = transformers.GPT2Tokenizer(str(tmp_path / "vocab.json"), str(tmp_path / "merges.txt"))
    for text in PROBE:
        ids = ours.encode(text).ids
        assert ids == ref.encode(text)
        assert ours.decode(ids) == text


def test_bert_wordpiece_matches_transformers(tmp_path):
    wp = tokenizers.BertWordPieceTokenizer(lowercase=True)
    wp.train_from_iterator(TEXT, vocab_size=120, min_frequency=1, show_progress=False)
    wp.save_model(str(tmp_path))
    ours = T.bert_tokenizer(str(tmp_path))
    ref = transformers.BertTokenizer(str(tmp_path / "vocab.txt"), do_lower_case=True)
    for text in PROBE:
        assert ours.encode(text).ids == ref.encode(text)


def test_a_directory_without_vocabulary_is_refused(tmp_path):
    with pytest.raises(ArgumentError, match="neither tokenizer.json nor vocab.json"):
        T.gpt2_tokenizer(str(tmp_path))
    with pytest.raises(ArgumentError, match="neither tokenizer.json nor vocab.txt"):
        T.bert_tokenizer(str(tmp_path))
