"""Element-wise ops of two or three inputs with broadcasting and type promotion, the
arithmetic operators, and tensor-with-number arithmetic."""
