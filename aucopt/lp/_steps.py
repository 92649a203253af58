"""Step rules of the projected subgradient method for the LP Ranker (Ataman 2007, Fig. 4.4).

A step rule turns the k-th iterate's objective F, the certified lower bound LB and the squared
norm ‖g‖² of its subgradient into the multiplier s_k of the step α ← max(0, α − s_k g):

* :class:`ConstantStep` (``rule="constant"``): s_k = step/‖g‖, a move of length ``step``;
* :class:`DiminishingStep` (``rule="sqrt"``): s_k = step/(√k ‖g‖);
* :class:`DynamicStep` (``rule="dynamic"``, the thesis's): the Polyak step towards the target
  (1 − ``target_frac``)·F, s_k = λ_k ``target_frac`` F/‖g‖²;
* :class:`DualTargetStep` (``rule="dual_target"``): the Polyak step towards the certified bound,
  s_k = λ_k max(F − LB, 0.001 ``target_frac`` F)/‖g‖².

The two Polyak steps share the schedule of λ (:class:`PolyakStep`): it starts at ``step0`` and
is divided by ``shrink`` on the (``patience`` + 1)-th consecutive iteration that does not
improve the best objective by more than ``min_improvement`` (relative); the run stops when
λ < ``step_min``. The fixed rules have no schedule and never stop the run themselves.
"""

from __future__ import annotations

import math
from typing import Protocol

__all__ = ["STEP_RULES", "ConstantStep", "DiminishingStep", "DualTargetStep", "DynamicStep", "PolyakStep",
           "StepRule", "step_rule"]

STEP_RULES = ("dynamic", "dual_target", "constant", "sqrt")


class StepRule(Protocol):
    """The multiplier s_k of the k-th subgradient step, and the rule's own stop."""

    #: the step scale λ_k of a Polyak rule (recorded in the history as ``step_scale``), None for a fixed rule
    scale: float | None

    def observe(self, F: float, best: float) -> None:
        """Take the k-th objective F, the best objective before it being ``best``."""

    def exhausted(self) -> bool:
        """Whether the rule ends the run (its step scale fell below ``step_min``)."""

    def step(self, F: float, lower: float, gg: float, k: int) -> float:
        """s_k at objective F, certified lower bound ``lower``, ‖g‖² = ``gg`` (> 0), iteration k ≥ 1."""


class ConstantStep:
    """A move of length ``step`` along −g/‖g‖ (normalized: ‖g‖ grows with C and the pairs)."""

    scale: float | None = None

    def __init__(self, step: float):
        self.distance = float(step)

    def observe(self, F: float, best: float) -> None:
        pass

    def exhausted(self) -> bool:
        return False

    def step(self, F: float, lower: float, gg: float, k: int) -> float:
        return self.distance / math.sqrt(gg)


class DiminishingStep(ConstantStep):
    """A move of length ``step``/√k along −g/‖g‖."""

    def step(self, F: float, lower: float, gg: float, k: int) -> float:
        return self.distance / math.sqrt(k * gg)


class PolyakStep:
    """The λ schedule of the Polyak steps: shrink after ``patience`` non-improving iterations."""

    def __init__(self, step0: float, step_min: float, patience: int, shrink: float, target_frac: float,
                 min_improvement: float):
        self.scale: float | None = float(step0)
        self.step_min, self.patience, self.shrink = step_min, patience, shrink
        self.target_frac, self.min_improvement = target_frac, min_improvement
        self.idle = 0  # consecutive non-improving iterations

    @property
    def lam(self) -> float:
        assert self.scale is not None  # a Polyak rule always has its scale
        return self.scale

    def observe(self, F: float, best: float) -> None:
        # an improvement beats the best by more than min_improvement (any finite F beats the first best, inf)
        improved = best > F and (not math.isfinite(best) or best - self.min_improvement * abs(best) > F)
        if improved:
            self.idle = 0
        elif self.idle < self.patience:
            self.idle += 1
        else:
            self.scale, self.idle = self.lam / self.shrink, 0

    def exhausted(self) -> bool:
        return self.lam < self.step_min

    def step(self, F: float, lower: float, gg: float, k: int) -> float:
        raise NotImplementedError  # the target of the Polyak step: DynamicStep, DualTargetStep


class DynamicStep(PolyakStep):
    """The Polyak step towards (1 − ``target_frac``)·F (Ataman 2007, Fig. 4.4)."""

    def step(self, F: float, lower: float, gg: float, k: int) -> float:
        return self.lam * self.target_frac * F / gg


class DualTargetStep(PolyakStep):
    """The Polyak step towards the certified lower bound (Polyak 1969), at least 0.001·``target_frac``·F."""

    def step(self, F: float, lower: float, gg: float, k: int) -> float:
        return self.lam * max(F - lower, self.target_frac * 1e-3 * F) / gg


def step_rule(rule: str, *, step0: float, step_min: float, patience: int, shrink: float, target_frac: float,
              min_improvement: float, step: float) -> StepRule:
    """The step rule named ``rule`` (one of :data:`STEP_RULES`) with its parameters."""
    if rule == "constant":
        return ConstantStep(step)
    if rule == "sqrt":
        return DiminishingStep(step)
    polyak = {"dynamic": DynamicStep, "dual_target": DualTargetStep}[rule]
    return polyak(step0, step_min, patience, shrink, target_frac, min_improvement)
