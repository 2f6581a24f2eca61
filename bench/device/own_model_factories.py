"""Factories for bench/device/own-model-session.sh (tools/export_model.py --file ... --factory ...).
Hugging Face models from a config: no download, random weights (the speed does not depend on them)."""


def bert_base_classifier():
    """BertForSequenceClassification as the built-in bert-base: BERT-base, 2 labels, dropout 0.1.
    torchscript=True: the forward returns a tuple (logits,) that torch.jit.trace can record."""
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(num_labels=2, torchscript=True)  # the defaults are BERT-base: 12 x 768, vocab 30522
    return BertForSequenceClassification(config)
