"""Contact: BVH detection, continuous point–triangle and edge tests, and the step's rows solved as one problem."""
from .colliders import Collider, ContactSettings  # noqa: F401
from .stage import ContactStage  # noqa: F401

__all__ = ["Collider", "ContactSettings", "ContactStage"]
