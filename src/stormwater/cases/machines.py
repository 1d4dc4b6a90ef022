"""State machines as tables (STYLE.md habit 4), one per kind of case, registered here.

A domain app declares its machine (statuses, allowed transitions, which clocks stand still in which
status, which clocks a status meets) and registers it when its module is imported; the one
transition service (``cases.services.case_transition``) reads the table. No state-machine library.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Machine:
    kind: str                                   # Case.kind, e.g. "permit"
    number_prefix: str                          # e.g. "SWP" → SWP-2026-0001
    initial: str
    transitions: dict[str, frozenset[str]]      # status → the statuses it may move to
    labels: dict[str, str]                      # status → label shown to people
    # While a case is in status S, each (clock kind, reason) in tolls[S] stands still: entering S
    # opens a toll on that clock, leaving S closes it (ClockToll, cases.services).
    tolls: dict[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # Entering status S meets (stops) these clocks: the act they time was done.
    meets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    closed: frozenset[str] = frozenset()        # statuses that close the case (closed_at is set)

    def __post_init__(self):
        statuses = set(self.labels)
        assert self.initial in statuses, f"{self.kind}: initial status {self.initial!r} unknown"
        assert set(self.transitions) == statuses, f"{self.kind}: every status needs a row in the table"
        for src, dsts in self.transitions.items():
            assert dsts <= statuses, f"{self.kind}: {src} → unknown {dsts - statuses}"
            assert src not in dsts, f"{self.kind}: {src} → itself is not a transition"

    def allowed(self, src: str, dst: str) -> bool:
        return dst in self.transitions.get(src, frozenset())


MACHINES: dict[str, Machine] = {}


def register(machine: Machine) -> Machine:
    MACHINES[machine.kind] = machine
    return machine


def machine_for(kind: str) -> Machine:
    try:
        return MACHINES[kind]
    except KeyError:
        raise LookupError(f"no state machine registered for case kind {kind!r}") from None
