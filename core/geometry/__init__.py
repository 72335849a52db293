"""Geometry: tetrahedralization (cage and conforming), fast winding numbers, embedding of points in tet meshes."""
from .embedding import Embedding, embed_points
from .tetrahedralize import tetrahedralize
from .winding import WindingNumber

__all__ = ["Embedding", "WindingNumber", "embed_points", "tetrahedralize"]
