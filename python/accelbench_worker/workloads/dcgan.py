"""dcgan's Python twin (src/workloads/dcgan.cpp): the generator and discriminator of PyTorch's
examples/dcgan (64x64 images, nz 100, ngf = ndf = 64, nc 1, N(0, 0.02) initialisation), trained as
that example's loop trains them: a discriminator step on a real and a fake batch, then a generator
step, BCE loss, two Adam optimizers (lr 2e-4, betas (0.5, 0.999)). Real images: Fashion-MNIST (or
the C++ workload's synthetic images) resized to 64x64 and scaled to [-1, 1]."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

from ..data import fashion_images
from .workload import Workload

NZ, NGF, NDF, NC = 100, 64, 64, 1
LR, BETAS = 2e-4, (0.5, 0.999)


def up(i, o, stride, pad):
    return nn.ConvTranspose2d(i, o, 4, stride, pad, bias=False)


def down(i, o, stride, pad):
    return nn.Conv2d(i, o, 4, stride, pad, bias=False)


def generator():
    return nn.Sequential(up(NZ, NGF * 8, 1, 0), nn.BatchNorm2d(NGF * 8), nn.ReLU(True),
                         up(NGF * 8, NGF * 4, 2, 1), nn.BatchNorm2d(NGF * 4), nn.ReLU(True),
                         up(NGF * 4, NGF * 2, 2, 1), nn.BatchNorm2d(NGF * 2), nn.ReLU(True),
                         up(NGF * 2, NGF, 2, 1), nn.BatchNorm2d(NGF), nn.ReLU(True),
                         up(NGF, NC, 2, 1), nn.Tanh())


def discriminator():
    return nn.Sequential(down(NC, NDF, 2, 1), nn.LeakyReLU(0.2, inplace=True),
                         down(NDF, NDF * 2, 2, 1), nn.BatchNorm2d(NDF * 2), nn.LeakyReLU(0.2, inplace=True),
                         down(NDF * 2, NDF * 4, 2, 1), nn.BatchNorm2d(NDF * 4), nn.LeakyReLU(0.2, inplace=True),
                         down(NDF * 4, NDF * 8, 2, 1), nn.BatchNorm2d(NDF * 8), nn.LeakyReLU(0.2, inplace=True),
                         down(NDF * 8, 1, 1, 0), nn.Sigmoid())


def weights_init(m):
    """The example's weights_init."""
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        nn.init.normal_(m.weight.data, 0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        nn.init.normal_(m.weight.data, 1.0, 0.02)
        nn.init.constant_(m.bias.data, 0)


class Dcgan(nn.Module):
    """Both networks, so that the harness moves, counts and compiles them as one model."""

    def __init__(self):
        super().__init__()
        self.netG = generator()
        self.netD = discriminator()
        self.netG.apply(weights_init)
        self.netD.apply(weights_init)


def make_model(_width: int, _inputs: dict) -> nn.Module:
    return Dcgan()


def train_flops(_width: int, _inputs: dict) -> float:
    g = (1.0 * NZ * NGF * 8 * 16 + 4.0 * 4 * NGF * 8 * NGF * 4 * 16 + 8.0 * 8 * NGF * 4 * NGF * 2 * 16
         + 16.0 * 16 * NGF * 2 * NGF * 16 + 32.0 * 32 * NGF * NC * 16)
    d = (32.0 * 32 * NDF * NC * 16 + 16.0 * 16 * NDF * 2 * NDF * 16 + 8.0 * 8 * NDF * 4 * NDF * 2 * 16
         + 4.0 * 4 * NDF * 8 * NDF * 4 * 16 + 1.0 * NDF * 8 * 16)
    return 3.0 * 2.0 * (g + 3.0 * d)


def make_batches(inputs: dict, batch: int, count: int):
    images, _, source, synthetic = fashion_images(inputs, batch * count)
    n = images.shape[0]
    out = []
    for i in range(count):
        idx = torch.arange(i * batch, (i + 1) * batch).remainder(n)
        x = images.index_select(0, idx).float().div_(127.5).sub_(1.0).unsqueeze(1)
        out.append(((F.interpolate(x, size=[64, 64], mode="bilinear", align_corners=False),), None))
    return out, source + ", resized to 64x64", synthetic


class GanTraining:
    """The example's training iteration; the loss it reports is errD_real + errD_fake + errG."""

    def __init__(self, model: Dcgan, make_optimizer, batch: int, device, seed: int, autocast):
        self.g, self.d = model.netG, model.netD
        self.opt_d = make_optimizer(self.d.parameters())
        self.opt_g = make_optimizer(self.g.parameters())
        self.batch, self.device, self.autocast = batch, device, autocast
        self.ones = torch.ones(batch, device=device)
        self.zeros = torch.zeros(batch, device=device)
        gen = torch.Generator().manual_seed(seed + 4000)
        self.eval_noise = torch.randn(batch, NZ, 1, 1, generator=gen).to(device)

    def D(self, x):
        with self.autocast():
            return self.d(x).view(-1).float()

    def step(self, real):
        err_real = F.binary_cross_entropy(self.D(real), self.ones)
        err_real.backward()
        noise = torch.randn(self.batch, NZ, 1, 1, device=self.device)
        with self.autocast():
            fake = self.g(noise)
        err_fake = F.binary_cross_entropy(self.D(fake.detach()), self.zeros)
        err_fake.backward()
        self.opt_d.step()
        self.opt_d.zero_grad()
        err_g = F.binary_cross_entropy(self.D(fake), self.ones)
        err_g.backward()
        self.opt_g.step()
        self.opt_g.zero_grad()
        self.opt_d.zero_grad()
        return (err_real + err_fake + err_g).detach()

    def evaluation_loss(self, real) -> float:
        """How far G's images from fixed noise are from the first real batch: the mean over pixels
        of the squared gaps between their per-pixel means and between their per-pixel standard
        deviations (batch norm in training mode, as the example never evaluates)."""
        with torch.no_grad():
            fake = self.g(self.eval_noise).float()
            real = real.float()
            mean_gap = (fake.mean(0) - real.mean(0)).pow(2).mean()
            sd_gap = (fake.std(0, correction=0) - real.std(0, correction=0)).pow(2).mean()
        return float((mean_gap + sd_gap).item())


WORKLOAD = Workload("dcgan", make_model, make_batches, 60000, "images", train_flops, lr=LR,
                    optimizer_kwargs={"betas": BETAS}, gan=True, reads_fashion=True)
