"""Model factories for bench/gpu/own-model.sh (tools/export_model.py --file ... --factory ...).
Hugging Face models from a config: no download, random weights (the speed does not depend on them)."""
import torch


class BertWithMask(torch.nn.Module):
    """BertForSequenceClassification with the attention mask and token types as inputs, returning
    the logits. Traced, a mask the model made itself (torch.ones(..., device=input_ids.device)) would
    be frozen on the CPU and fail on the GPU ('Expected all tensors to be on the same device', before
    accelbench moved a trace's frozen devices); given as an input, it moves with the batch."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, input_ids, attention_mask):
        token_type_ids = torch.zeros_like(input_ids)
        return self.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)[0]


def bert_base_classifier():
    """BertForSequenceClassification as the built-in bert-base: BERT-base, 2 labels, dropout 0.1.
    torchscript=True: the forward returns a tuple that torch.jit.trace can record.
    Export with --input 128:int64:0..30522,128:int64:1..2 (ids, an all-ones mask) --target classes:2."""
    from transformers import BertConfig, BertForSequenceClassification

    config = BertConfig(num_labels=2, torchscript=True)  # the defaults are BERT-base: 12 x 768, vocab 30522
    return BertWithMask(BertForSequenceClassification(config))
