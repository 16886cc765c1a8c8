"""Element-wise ops of one input (unary maths, fused activations and the backward selections
of the piecewise-linear ones, symlog / symexp), comparisons and logic, floating-point
representation and number theory, and complex numbers."""
