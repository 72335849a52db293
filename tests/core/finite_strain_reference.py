"""Test-only finite-strain reference: compressible neo-Hookean static equilibrium under gravity with scikit-fem's own
assembly (its forms, P1 or P2 tets, Newton with load stepping), independent of SoftFEM's kernels."""
import numpy as np
from scipy.sparse.linalg import eigsh, splu
from skfem import Basis, BilinearForm, ElementTetP1, ElementTetP2, ElementVector, LinearForm, MeshTet, asm, condense
from skfem.helpers import ddot, det, dot, grad, inv, transpose


def _lame(youngs_modulus, poisson_ratio):
    return (youngs_modulus * poisson_ratio / ((1 + poisson_ratio) * (1 - 2 * poisson_ratio)),
            youngs_modulus / (2 * (1 + poisson_ratio)))


def _kinematics(w):
    """F = I + ∇u, F⁻ᵀ and log J at the quadrature points of the current displacement w.u."""
    f = grad(w["u"]) + np.eye(3)[:, :, None, None]
    with np.errstate(invalid="ignore", divide="ignore"):   # an inverted trial step: Newton's caller rejects it
        return f, transpose(inv(f)), np.log(det(f))


class NeoHookeanStatic:
    """Ψ = ½μ(I₁ − 3) − μ log J + ½λ(log J)² (the energy of core.fem.materials.neo_hookean), P = μ(F − F⁻ᵀ) +
    λ log J F⁻ᵀ, on a scikit-fem MeshTet with `order` 1 or 2 Lagrange tets, held at rest where `fixed` says: a
    callable fixed(x) (x (3, k)) picks the boundary facets it is true on; a boolean mask over the mesh's nodes fixes
    those nodes (and, P2, the edges between two of them) wherever they are. solve(gravity) returns the equilibrium
    displacement, found by Newton (the consistent tangent) from the rest shape through load steps (halved where Newton
    fails)."""

    def __init__(self, mesh, youngs_modulus, poisson_ratio, density, fixed, order=2):
        if not isinstance(mesh, MeshTet):
            raise TypeError("mesh must be a skfem.MeshTet")
        self.lam, self.mu = _lame(youngs_modulus, poisson_ratio)
        self.density = float(density)
        element = ElementVector(ElementTetP2() if order == 2 else ElementTetP1())
        self.basis = Basis(mesh, element, intorder=2 * order)
        if callable(fixed):
            self.fixed = self.basis.get_dofs(fixed).all()
        else:
            fixed = np.asarray(fixed, bool)
            dofs = [self.basis.nodal_dofs[:, fixed].ravel()]
            if order == 2:
                dofs.append(self.basis.edge_dofs[:, fixed[mesh.edges].all(axis=0)].ravel())
            self.fixed = np.concatenate(dofs)
        lam, mu = self.lam, self.mu

        @BilinearForm
        def tangent(du, v, w):
            _, fit, log_j = _kinematics(w)
            gdu, gv = grad(du), grad(v)
            # dP = μ dF + (μ − λ log J) F⁻ᵀ dFᵀ F⁻ᵀ + λ (F⁻ᵀ : dF) F⁻ᵀ
            a = np.einsum("ij...,kj...,kl...->il...", fit, gdu, fit)
            return (mu * ddot(gdu, gv) + (mu - lam * log_j) * ddot(a, gv)
                    + lam * ddot(fit, gdu) * ddot(fit, gv))

        @LinearForm
        def internal(v, w):
            f, fit, log_j = _kinematics(w)
            return ddot(mu * (f - fit) + lam * log_j * fit, grad(v))

        @LinearForm
        def weight(v, w):
            return dot(w["g"], v)

        self._tangent, self._internal, self._weight = tangent, internal, weight

    def _fields(self, u):
        return {"u": self.basis.interpolate(u)}

    def solve(self, gravity, tolerance=1e-9, max_newton=30, min_step=1e-4):
        """Equilibrium displacement (dof vector) under body force density × gravity (3,); RuntimeError when Newton
        fails on a load step shorter than `min_step` (of the full load)."""
        g = self.density * np.asarray(gravity, float)
        u = self.basis.zeros()
        shape = self.basis.interpolate(u).shape[-2:]
        load_vector = asm(self._weight, self.basis, g=np.broadcast_to(g[:, None, None], (3,) + shape).copy())
        scale = np.linalg.norm(load_vector)
        load, step = 0.0, 1.0
        while load < 1.0:
            target = min(1.0, load + step)
            trial = self._newton(u.copy(), target * load_vector, scale, tolerance, max_newton)
            if trial is None:
                step *= 0.5
                if step < min_step:
                    raise RuntimeError(f"reference Newton failed at load {target:.4f}")
                continue
            u, load, step = trial, target, min(1.0, 2.0 * step)
        return u

    def _newton(self, u, load_vector, scale, tolerance, max_newton):
        for _ in range(max_newton):
            fields = self._fields(u)
            residual = load_vector - asm(self._internal, self.basis, **fields)
            residual[self.fixed] = 0.0
            if not np.all(np.isfinite(residual)):
                return None
            if np.linalg.norm(residual) <= tolerance * scale:
                return u
            k = asm(self._tangent, self.basis, **fields)
            a, b, _, interior = condense(k, residual, D=self.fixed)
            du = np.zeros_like(u)
            du[interior] = splu(a.tocsc()).solve(b)
            u = u + du
            if not np.all(np.isfinite(u)) or np.min(det(_kinematics(self._fields(u))[0])) <= 0:
                return None
        return None

    def lowest_stiffness(self, u):
        """The smallest eigenvalue of the tangent at u (the free dofs'), over the mean of its diagonal: positive where
        the equilibrium u is stable, negative past a buckling or limit point."""
        k = asm(self._tangent, self.basis, **self._fields(u))
        a = condense(k, np.zeros(k.shape[0]), D=self.fixed)[0].tocsc()
        return eigsh(a, k=2, sigma=0.0, which="LM", return_eigenvectors=False).min() / np.abs(a.diagonal()).mean()

    def displacement_at(self, u, points):
        """Displacement (k, 3) of the solution u at points (k, 3) of the rest shape."""
        points = np.asarray(points, float).reshape(-1, 3)
        probe = self.basis.probes(points.T)
        return (probe @ u).reshape(3, -1).T
