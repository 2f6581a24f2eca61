"""Makes the model files of the --model-file tests in OUTDIR (one Python process: torch imported
once): exports of tiny_models.py through tools/export_model.py, plus a file that is not TorchScript
and a truncated one. Run by tests/e2e/own_model_cli_test.cpp with the build's Python."""
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "..", "tools"))
import export_model  # noqa: E402

out = sys.argv[1]
models = os.path.join(here, "tiny_models.py")
exports = {
    "conv.pt": ["--factory", "residual_conv", "--input", "3x16x16:float32", "--target", "classes:10"],
    "traced.pt": ["--factory", "residual_conv", "--trace", "--input", "3x16x16:float32", "--target", "classes:10"],
    "dict.pt": ["--factory", "dict_mlp", "--input", "32:float32", "--target", "classes:4"],
    "ownloss.pt": ["--factory", "own_loss", "--input", "12:int64:0..50", "--target", "loss"],
    "frozen.pt": ["--factory", "frozen", "--input", "8:float32", "--target", "classes:3"],
    "linear.pt": ["--factory", "linear", "--input", "8:float32", "--target", "mse:3"],
    "small-batch.pt": ["--factory", "small_batch_only", "--input", "8:float32", "--target", "classes:3"],
    "frozen-device.pt": ["--factory", "frozen_device", "--trace", "--input", "8:float32", "--target", "classes:3"],
}
for name, args in exports.items():
    rc = export_model.main(["--file", models, *args, "-o", os.path.join(out, name)])
    if rc != 0:
        sys.exit(f"export of {name} failed ({rc})")
leftovers = [f for f in os.listdir(out) if ".tmp-" in f]  # export_model saves through a temporary file
if leftovers:
    sys.exit(f"export_model left temporary files: {leftovers}")
with open(os.path.join(out, "not-torchscript.pt"), "w") as f:
    f.write("this is not a TorchScript file\n")
import torch  # noqa: E402  (imported by export_model already)

torch.save(torch.nn.Linear(8, 3).state_dict(), os.path.join(out, "state-dict.pt"))  # a zip, not TorchScript
with open(os.path.join(out, "conv.pt"), "rb") as f:
    data = f.read()
with open(os.path.join(out, "truncated.pt"), "wb") as f:
    f.write(data[: len(data) // 2])
