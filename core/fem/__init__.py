"""Force model: corotational linear FEM on tets, DAPD rotation extraction, stress differentials."""
