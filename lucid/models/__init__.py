"""``lucid.models``: model families written from their papers, under the configuration
names users know, built by name (:func:`create_model`) and loading the PyTorch
ecosystem's checkpoints (Hugging Face's, by module name).

- :mod:`.gpt2`: GPT-2 small and medium;
- :mod:`.llama`: the LLaMA-style decoder (RMSNorm, rotary embeddings, grouped-query
  attention, SwiGLU), in SmolLM-135M's configuration;
- :mod:`.classic`: LeNet-5, AlexNet, VGG-11/16 (with and without batch norm);
- :mod:`.mobile`: MobileNet v2, MobileNet v3 (small, large), EfficientNet-B0,
  DenseNet-121;
- :mod:`.resnet`: ResNet-18/34/50/101/152, ResNeXt-50 32x4d, Wide ResNet-50-2;
- :mod:`.convnext`: ConvNeXt-Tiny;
- :mod:`.regnet`: RegNet-Y-400MF;
- :mod:`.swin`: Swin-T;
- :mod:`.vit`: ViT-B/16;
- :mod:`.bert`: BERT-base, the encoder with its pooler;
- :mod:`.unet`: U-Net, the segmentation network (padded form);
- :mod:`.diffusion`: the DDPM noise-predicting U-Net in ``google/ddpm-cifar10-32``'s
  configuration, and its linear noise schedule;
- :mod:`.vae`: the KL autoencoder of Stable Diffusion (``AutoencoderKL``);
- :mod:`.weights`: torchvision's checkpoints by name (``ResNet50_Weights.DEFAULT``);
- :mod:`.tokenizers`: GPT-2's BPE and BERT's WordPiece, through the tokenizers package;
- :mod:`.generation`: the key/value cache and sampling the decoders generate with.
"""

from . import (
    bert,
    classic,
    convnext,
    diffusion,
    generation,
    gpt2,
    llama,
    mobile,
    regnet,
    resnet,
    swin,
    tokenizers,
    unet,
    vae,
    vit,
    weights,
)
from .registry import ModelEntry, create_model, list_models, model_entry, register_model

__all__ = [
    "bert",
    "classic",
    "convnext",
    "diffusion",
    "generation",
    "gpt2",
    "llama",
    "mobile",
    "regnet",
    "resnet",
    "swin",
    "tokenizers",
    "unet",
    "vae",
    "vit",
    "weights",
    "create_model",
    "list_models",
    "model_entry",
    "register_model",
    "ModelEntry",
]
