import a as
from m import (x as b, c as)

@triton.jit
def k(a, b):
    return a + b
