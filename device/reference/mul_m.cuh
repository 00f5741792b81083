// The residue operations of the CUDA C references, as rns-core's Modulus does them: the
// canonical mul_m (double-precision quotient estimate, one correction each way), add, sub.
#pragma once
#include <cstdint>

__device__ __forceinline__ uint32_t add_m(uint32_t a, uint32_t b, uint32_t m) {
    uint32_t s = a + b, t = s - m;
    return t < s ? t : s;
}

__device__ __forceinline__ uint32_t sub_m(uint32_t a, uint32_t b, uint32_t m) {
    uint32_t d = a - b;
    return a >= b ? d : d + m;
}

__device__ __forceinline__ uint32_t mul_m(uint32_t a, uint32_t b, uint32_t m, double invk) {
    uint32_t hi = __umulhi(a << 1, b << 1);
    double rf = fma(__uint2double_rn(hi), invk, 6755399441055744.0);
    uint32_t q = (uint32_t)__double2loint(rf);
    uint32_t r = a * b - q * m;
    if (r >= 0xA0000000u) r += m;
    uint32_t s = r - m;
    return s < r ? s : r;
}
