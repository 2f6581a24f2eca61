"""What the worker needs to know of a built-in model besides the model itself: its recipe
(learning rate and schedule, the optimizer's settings) is the C++ workload's
(src/workloads/*.cpp). One file per workload beside this one defines its `WORKLOAD`."""

from __future__ import annotations

STAGED_BATCHES = 8  # distinct batches staged on the device before timing, cycled (as the C++ tasks)


class Workload:
    def __init__(self, name, make_model, make_batch, samples_per_epoch, unit, flops_per_sample, lr,
                 schedule=None, schedule_text="", optimizer="adam", optimizer_kwargs=None, gan=False,
                 reads_fashion=False):
        self.name = name
        self.make_model = make_model          # (width, inputs) -> nn.Module
        self.make_batch = make_batch          # (inputs, batch, count) -> (batches, source, synthetic)
        self.samples_per_epoch = samples_per_epoch
        self.unit = unit
        self.flops_per_sample = flops_per_sample  # (width, inputs) -> training FLOPs per sample
        self.lr = lr
        self.schedule = schedule              # updates taken -> factor of lr (LambdaLR), None: constant
        self.schedule_text = schedule_text
        self.optimizer = optimizer            # without --py-optimizer
        self.optimizer_kwargs = optimizer_kwargs or {}  # for Adam and AdamW (weight decay, betas)
        self.gan = gan                        # dcgan: two networks, two optimizers (dcgan.GanTraining)
        self.reads_fashion = reads_fashion    # its data is Fashion-MNIST (read once by the round server)


def linear_warmup(steps: int):
    """The k-th update at lr * k / steps until k reaches steps (the C++ LrSchedule)."""
    return lambda s: min(s + 1, steps) / steps


def warmup_from_zero_then_linear_decay(warmup: int, cycle: int):
    """transformers' get_linear_schedule_with_warmup, cycled (the C++ LrSchedule with start_at_zero)."""
    def factor(s):
        s %= cycle
        return s / warmup if s < warmup else 1.0 - (s - warmup) / (cycle - warmup)
    return factor
