// CUDA C reference of the Rust kernel `rns_resultant_block` (device/src/kernels/resultant.rs):
// the same algorithm (rns-core's euclid module: fraction-free passes of two quotient terms
// spread over the block, one barrier each, the steps' denominators multiplied together and
// inverted once at the end), the same canonical mul_m, the same launch shape.
// Reads the inputs that examples/univariate_bench.rs writes (--dump DIR) and prints the
// median kernel time and a checksum to compare with the Rust kernel's.
//   nvcc -O3 -arch=sm_90 -o resultant resultant.cu && ./resultant FILE THREADS
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>
#include "mul_m.cuh"

__device__ uint32_t pow_m(uint32_t a, uint64_t e, uint32_t m, double invk) {
    uint32_t r = 1;
    while (e) {
        if (e & 1) r = mul_m(r, a, m, invk);
        a = mul_m(a, a, m, invk);
        e >>= 1;
    }
    return r;
}

__device__ uint32_t inv_m(uint32_t a, uint32_t m, double invk) {
    uint32_t r0 = m, r1 = a, s0 = 0, s1 = 1;
    while (r1) {
        uint32_t q = r0 / r1, t = r0 - q * r1;
        r0 = r1; r1 = t;
        uint32_t s = sub_m(s0, mul_m(q % m, s1, m, invk), m);
        s0 = s1; s1 = s;
    }
    return s0;
}

__global__ void resultant_block(uint32_t *out, const uint32_t *data, const uint32_t *ms, const double *invks,
                                uint32_t df0, uint32_t dg0) {
    extern __shared__ uint32_t smem[];
    size_t c = blockIdx.x;
    uint32_t m = ms[c];
    double invk = invks[c];
    size_t df = df0, dg = dg0, len = df + dg + 2;
    uint32_t tid = threadIdx.x, nt = blockDim.x;
    uint32_t *rec = smem + len;  // per step: lc(g), denominator exponent
    const uint32_t *src = data + c * len;
    for (size_t i = tid; i < len; i += nt) smem[i] = src[i];
    uint32_t *f = smem, *g = smem + df + 1;
    uint32_t num = 1;
    size_t steps = 0;
    bool zero = false;
    __syncthreads();
    while (dg > 0) {
        uint32_t lc = g[dg];
        for (size_t top = df; top >= dg;) {
            size_t w = top + 1 - dg < 2 ? top + 1 - dg : 2;
            uint32_t a = f[top], s = lc, q0 = a, q1 = 0;
            if (w == 2) {
                q1 = sub_m(mul_m(lc, f[top - 1], m, invk), mul_m(a, g[dg - 1], m, invk), m);
                s = mul_m(lc, lc, m, invk);
                q0 = mul_m(lc, a, m, invk);
            }
            size_t s0 = top - dg, s1 = top - 1 - dg;
            for (size_t j = tid; j < top + 1 - w; j += nt) {
                uint32_t acc = mul_m(s, f[j], m, invk);
                if (j >= s0) acc = sub_m(acc, mul_m(q0, g[j - s0], m, invk), m);
                if (w == 2 && j >= s1) acc = sub_m(acc, mul_m(q1, g[j - s1], m, invk), m);
                f[j] = acc;
            }
            __syncthreads();
            top -= w;
        }
        size_t below = df < dg ? df + 1 : dg, k = below;
        bool found = false;
        while (k > 0) { k--; if (f[k]) { found = true; break; } }
        if (!found) { zero = true; break; }
        if (tid == 0) {
            if (df < dg) num = mul_m(num, pow_m(lc, df - k, m, invk), m, invk);
            if ((df & 1) && (dg & 1)) num = num ? m - num : 0;
            rec[2 * steps] = lc;
            rec[2 * steps + 1] = df < dg ? 0 : (uint32_t)((df - dg) * (dg - 1) + k);
        }
        steps++;
        uint32_t *t = f; f = g; g = t;
        df = dg; dg = k;
    }
    if (zero) { if (tid == 0) out[c] = 0; return; }
    __syncthreads();
    for (size_t t = tid; t < steps; t += nt) rec[2 * t] = pow_m(rec[2 * t], rec[2 * t + 1], m, invk);
    __syncthreads();
    for (size_t span = 1; span < steps; span *= 2) {
        for (size_t t = 2 * span * tid; t + span < steps; t += 2 * span * nt)
            rec[2 * t] = mul_m(rec[2 * t], rec[2 * (t + span)], m, invk);
        __syncthreads();
    }
    if (tid == 0) {
        uint32_t den = steps ? rec[0] : 1;
        out[c] = mul_m(mul_m(num, pow_m(g[0], df, m, invk), m, invk), inv_m(den, m, invk), m, invk);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: resultant FILE THREADS\n"); return 2; }
    FILE *fp = fopen(argv[1], "rb");
    if (!fp) { fprintf(stderr, "cannot open %s\n", argv[1]); return 2; }
    uint32_t hdr[3];
    if (fread(hdr, 4, 3, fp) != 3) return 2;
    uint32_t k = hdr[0], df = hdr[1], dg = hdr[2], threads = atoi(argv[2]);
    size_t len = (size_t)df + dg + 2;
    std::vector<uint32_t> ms(k), data(k * len);
    std::vector<double> invk(k);
    if (fread(ms.data(), 4, k, fp) != k || fread(data.data(), 4, k * len, fp) != k * len) return 2;
    fclose(fp);
    for (uint32_t i = 0; i < k; i++) invk[i] = (double)(1u << 30) / ms[i];
    uint32_t *dout, *ddata, *dms; double *dinv;
    cudaMalloc(&dout, 4 * k); cudaMalloc(&ddata, 4 * k * len); cudaMalloc(&dms, 4 * k); cudaMalloc(&dinv, 8 * k);
    cudaMemcpy(ddata, data.data(), 4 * k * len, cudaMemcpyHostToDevice);
    cudaMemcpy(dms, ms.data(), 4 * k, cudaMemcpyHostToDevice);
    cudaMemcpy(dinv, invk.data(), 8 * k, cudaMemcpyHostToDevice);
    size_t steps = (df < dg ? df : dg) + 2, smem = 4 * (len + 2 * steps);
    cudaFuncSetAttribute(resultant_block, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024);
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> ts;
    for (int rep = 0; rep < 8; rep++) {
        cudaEventRecord(a);
        resultant_block<<<k, threads, smem>>>(dout, ddata, dms, dinv, df, dg);
        cudaEventRecord(b); cudaEventSynchronize(b);
        float t; cudaEventElapsedTime(&t, a, b);
        if (rep) ts.push_back(t);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { fprintf(stderr, "CUDA error: %s\n", cudaGetErrorString(e)); return 1; }
    std::vector<uint32_t> out(k);
    cudaMemcpy(out.data(), dout, 4 * k, cudaMemcpyDeviceToHost);
    uint64_t sum = 0;
    for (uint32_t v : out) sum += v;
    std::sort(ts.begin(), ts.end());
    printf("cuda C resultant_block deg %u/%u x%u primes, %u threads: median %.3f ms, checksum %llu\n",
           df, dg, k, threads, ts[ts.size() / 2], (unsigned long long)sum);
    return 0;
}
