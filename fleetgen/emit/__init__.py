"""Emitters: one module per target behind one Protocol, and the registry that picks them.

An emitter translates the Plan; it never decides placement. Its ``check`` reports what its
engine cannot express (engine-specific spec errors), before anything is emitted; its
``warnings`` what it accepts but cannot fully honour. Adding a target is one module (or
package) with these three functions and one line in `ALWAYS` or `ENGINES`.

Emitters never import one another; what they share is `common`, the one emitter module that
settle and the features import too. `versions` and `pictures` are no emitters: reports on the
Plan that the fleet map, ``diff``, ``versions`` and ``promote`` show.
"""

from fleetgen.emit.registry import (
    ALWAYS,
    ENGINES,
    Emitter,
    check,
    emit,
    emit_each,
    emitters_for,
    warnings,
)

__all__ = ["ALWAYS", "ENGINES", "Emitter", "check", "emit", "emit_each", "emitters_for", "warnings"]
