// CUDA C reference of the Rust kernel `rns_mul_chain` (device/src/kernels.rs): the same
// canonical mul_m (rns-core's Modulus::mul), the same four chains per thread, the same
// launch shape. Prints T modmul/s and a checksum to compare with the Rust kernel.
//   nvcc -O3 -arch=sm_90 -o mul_chain mul_chain.cu && ./mul_chain LEN ITERS
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include "mul_m.cuh"

struct Modulus { uint32_t m, two32, two32_shoup, pad; double invk; };

__global__ void mul_chain(uint32_t *out, const uint32_t *a, const Modulus *moduli, uint32_t len, uint32_t iters) {
    size_t c = blockIdx.y;
    Modulus md = moduli[c];
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < len; i += gridDim.x * blockDim.x) {
        size_t k = c * len + i;
        uint32_t y = a[k];
        uint32_t x0 = y, x1 = add_m(y, 1, md.m), x2 = add_m(y, 2, md.m), x3 = add_m(y, 3, md.m);
        for (uint32_t t = 0; t < iters; t++) {
            x0 = mul_m(x0, y, md.m, md.invk);
            x1 = mul_m(x1, y, md.m, md.invk);
            x2 = mul_m(x2, y, md.m, md.invk);
            x3 = mul_m(x3, y, md.m, md.invk);
        }
        out[k] = x0 ^ x1 ^ x2 ^ x3;
    }
}

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(err_), __LINE__); exit(1); } } while (0)

int main(int argc, char **argv) {
    uint32_t len = argc > 1 ? atoi(argv[1]) : (1u << 22);
    uint32_t iters = argc > 2 ? atoi(argv[2]) : 256;
    uint32_t m = 2147483629u;
    Modulus md = {m, (uint32_t)((1ull << 32) % m), 0, 0, (double)(1u << 30) / m};
    md.two32_shoup = (uint32_t)(((uint64_t)md.two32 << 32) / m);
    std::vector<uint32_t> h(len);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto &v : h) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; v = (uint32_t)(x % m); }
    uint32_t *da, *dout; Modulus *dm;
    CK(cudaMalloc(&da, len * 4)); CK(cudaMalloc(&dout, len * 4)); CK(cudaMalloc(&dm, sizeof md));
    CK(cudaMemcpy(da, h.data(), len * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dm, &md, sizeof md, cudaMemcpyHostToDevice));
    unsigned blocks = (len + 255) / 256; if (blocks > 65535) blocks = 65535;
    dim3 grid(blocks, 1), block(256);
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    mul_chain<<<grid, block>>>(dout, da, dm, len, iters); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < 7; r++) {
        cudaEventRecord(s);
        mul_chain<<<grid, block>>>(dout, da, dm, len, iters);
        cudaEventRecord(e); CK(cudaEventSynchronize(e)); CK(cudaGetLastError());
        float t; cudaEventElapsedTime(&t, s, e); ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<uint32_t> o(len);
    CK(cudaMemcpy(o.data(), dout, len * 4, cudaMemcpyDeviceToHost));
    uint64_t sum = 0; for (auto v : o) sum += v;
    double muls = 4.0 * len * iters;
    printf("cuda_c mul_chain: len %u iters %u median %.3f ms  %.3f T modmul/s  checksum %llu\n",
           len, iters, ms[3], muls / (ms[3] * 1e-3) / 1e12, (unsigned long long)sum);
    return 0;
}
