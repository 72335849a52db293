"""Contact: BVH detection, continuous point–triangle tests and Coulomb-friction pseudo-impulses."""
from .colliders import Collider, ContactSettings  # noqa: F401
from .stage import ContactStage  # noqa: F401

__all__ = ["Collider", "ContactSettings", "ContactStage"]
