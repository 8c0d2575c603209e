"""Kernel families read from compiled Triton code: the project's attention kernels (kernels.py), their
compilation for a GPU that need not be present (compile.py), their SASS instruction mix by pipe
(sass.py) and the record the time model can read, cached on disk (family.py). Needs the triton
package (scripts/setup --triton); nothing here imports torch except the launch and reference code."""
