"""examples/gpt2_generate.py end to end on a checkpoint made here: a byte-level BPE
tokenizer trained by the tokenizers package on a few sentences and a small random GPT-2
saved by transformers; greedy text must be transformers' own greedy text."""

import importlib.util
import pathlib

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
tokenizers = pytest.importorskip("tokenizers")

EXAMPLE = pathlib.Path(__file__).parents[2] / "examples" / "gpt2_generate.py"
TEXT = ["the cat sat on the mat", "a dog ran in the park", "the sun is warm today"] * 20


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    d = tmp_path_factory.mktemp("gpt2")
    tok = tokenizers.ByteLevelBPETokenizer()
    tok.train_from_iterator(TEXT, vocab_size=300, min_frequency=1, show_progress=False)
    tok.save_model(str(d))  # vocab.json, merges.txt
    torch.manual_seed(0)
    cfg = transformers.GPT2Config(
        vocab_size=tok.get_vocab_size(), n_positions=64, n_embd=32, n_layer=2, n_head=2
    )
    transformers.GPT2LMHeadModel(cfg).eval().save_pretrained(d)
    return d, tok


def _example():
    spec = importlib.util.spec_from_file_location("gpt2_generate", EXAMPLE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_greedy_text_is_transformers_greedy_text(checkpoint, capsys):
    d, tok = checkpoint
    text = _example().main([str(d), "--prompt", "the cat", "--max-new-tokens", "12"])
    hf = transformers.GPT2LMHeadModel.from_pretrained(d).eval()
    ids = torch.tensor([tok.encode("the cat").ids])
    with torch.no_grad():
        want = hf.generate(
            ids,
            max_new_tokens=12,
            do_sample=False,
            pad_token_id=0,
            attention_mask=torch.ones_like(ids),
        )
    assert text == tok.decode(want[0].tolist())
    assert "tokens/s" in capsys.readouterr().out


def test_sampling_is_seeded(checkpoint):
    d, _ = checkpoint
    args = [str(d), "--prompt", "a dog", "--max-new-tokens", "8", "--top-k", "20", "--top-p", "0.9"]
    ex = _example()
    assert ex.main(args + ["--seed", "3"]) == ex.main(args + ["--seed", "3"])
