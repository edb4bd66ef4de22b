"""Training that reads every pair as the shipped int8 file will (quantisation-aware fine-tuning).

The runtime reads an int8 file: each Linear weight rounded to s8 per output channel (scale = max |w| / 127, as
onnxruntime's ``quantize_dynamic(per_channel=True)`` writes it), each MatMul input rounded per token to u8 within
[0, 127] (``portable_formats.row_quantised``), the embedding tables rounded to u8 per table. A student trained in
float from the shipped file's dequantised weights moves most weights by a small fraction of one rounding step
(on the sixth CPU run's student, half of them by less than 0.4 % of a step, nine in ten by less than 7 %), so the
export rounds them back to the shipped integers and what the float student learnt is lost (its value file read
0.574 in float, 0.375 as exported).

:func:`quantisation_aware` makes the student compute with exactly those roundings: a parametrization replaces
each quantised Linear weight by its s8 rounding and a pre-hook rounds each such Linear's input per token, both
with straight-through gradients, so the float weights under them (the latent weights) gather the updates until
they cross a rounding boundary. The embedding tables, quantised per table, are frozen. :func:`plain` removes the
parametrizations and leaves each weight at its rounded value, which the export rounds to the same integers.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.utils import parametrize

from mermaid_verifier.reader.model_check import ROW_LEVELS  # u8 activations within [0, 127], per token
from training.weight_pack import dequantise, quantise

SMALLEST_SCALE = 1e-30  # a row of zeros: every level is its zero point (as row_quantised writes it)


def rounded_weight(weight: torch.Tensor) -> torch.Tensor:
    """``weight`` ([out, in]) rounded to s8 per output channel (``weight_pack.quantise``: the runtime's grid),
    dequantised, with a straight-through gradient."""
    return weight + (dequantise(*quantise(weight.detach())) - weight).detach()


def rounded_rows(x: torch.Tensor) -> torch.Tensor:
    """``x`` rounded per row of its last axis to u8 within [0, 127] with a zero point, as the shipped file's
    MatMuls read their input, dequantised, with a straight-through gradient. Computed in float32."""
    rows = x.detach().float()
    lo = rows.amin(dim=-1, keepdim=True).clamp_max(0.0)
    hi = rows.amax(dim=-1, keepdim=True).clamp_min(0.0)
    scale = ((hi - lo) / ROW_LEVELS).clamp_min(SMALLEST_SCALE)
    zero = torch.clamp(torch.round(-lo / scale), 0, ROW_LEVELS)
    levels = torch.clamp(torch.round(rows / scale) + zero, 0, ROW_LEVELS)
    return x + ((levels - zero) * scale).to(x.dtype) - x.detach()


class RoundedWeight(nn.Module):
    """The parametrization: the latent weight as the s8 file holds it."""

    def forward(self, weight: torch.Tensor) -> torch.Tensor:
        return rounded_weight(weight)


def _round_input(_module, args):
    return (rounded_rows(args[0]), *args[1:])


def quantisation_aware(model, quantised: set[str]) -> dict[str, int]:
    """Make ``model`` compute as its int8 export: every Linear whose weight is in ``quantised`` reads its weight
    rounded to s8 per channel and its input rounded per token; every other quantised parameter (the embedding
    tables) is frozen. Returns how many Linears and frozen tables."""
    linears, frozen = 0, 0
    modules = dict(model.named_modules())
    for name in sorted(quantised):
        owner, _, attribute = name.rpartition(".")
        module = modules[owner]
        if isinstance(module, nn.Linear) and attribute == "weight":
            parametrize.register_parametrization(module, "weight", RoundedWeight())
            module.register_forward_pre_hook(_round_input)
            linears += 1
        else:
            getattr(module, attribute).requires_grad_(False)
            frozen += 1
    if not linears:
        raise ValueError("no quantised Linear weight among the parameters named: another architecture's mapping?")
    return {"linears": linears, "frozen": frozen}


def plain(model) -> None:
    """Remove the parametrizations, each weight left at its rounded value (the hooks on inputs stay: the model
    keeps reading as the int8 file does)."""
    for module in model.modules():
        if parametrize.is_parametrized(module, "weight"):
            parametrize.remove_parametrizations(module, "weight", leave_parametrized=True)
