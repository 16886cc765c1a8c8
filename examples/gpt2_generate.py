"""Text from GPT-2 with the key/value cache, from a local Hugging Face checkpoint directory.

The directory is what ``save_pretrained`` writes (or a download of ``openai-community/gpt2``):
``config.json``, ``model.safetensors`` or ``pytorch_model.bin``, and the tokenizer as
``tokenizer.json`` or ``vocab.json`` with ``merges.txt`` (read by the ``tokenizers``
package). Greedy by default; ``--top-k``/``--top-p``/``--temperature`` sample instead.

    python examples/gpt2_generate.py CHECKPOINT_DIR --prompt "The meaning of life is"
        [--max-new-tokens 40] [--top-k 50] [--top-p 0.95] [--temperature 0.8] [--seed 0]
        [--device cpu|cuda]
"""

import argparse
import time

import lucid
from lucid.models import gpt2
from lucid.models.tokenizers import gpt2_tokenizer


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--prompt", default="The meaning of life is")
    ap.add_argument("--max-new-tokens", type=int, default=40)
    ap.add_argument("--top-k", type=int)
    ap.add_argument("--top-p", type=float)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args(argv)

    tok = gpt2_tokenizer(args.checkpoint)
    model = gpt2.from_pretrained(args.checkpoint, device=args.device)
    sample = args.top_k is not None or args.top_p is not None or args.temperature != 1.0
    ids = lucid.tensor([tok.encode(args.prompt).ids], device=args.device)
    gen = lucid.Generator(device=args.device).manual_seed(args.seed) if sample else None
    t = time.perf_counter()
    out = model.generate(
        ids,
        args.max_new_tokens,
        do_sample=sample,
        temperature=args.temperature,
        top_k=args.top_k,
        top_p=args.top_p,
        generator=gen,
    )
    dt = time.perf_counter() - t
    text = tok.decode(out[0].tolist())
    print(text)
    print(
        f"-- {args.max_new_tokens} tokens in {dt:.2f} s ({args.max_new_tokens / dt:.1f} tokens/s)"
    )
    return text


if __name__ == "__main__":
    main()
