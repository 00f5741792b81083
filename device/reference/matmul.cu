// CUDA C reference of the Rust kernel `rns_matmul` (device/src/kernels.rs): the same
// batched product modulo 31-bit primes (grid z = prime), 64×64 tiles of 16×16 threads
// with 4×4 entries each, 16-wide k-tiles of centered residues in shared memory, signed
// 64-bit sums folded every 4 products, one reduction at the end. The same inputs as
// examples/gpu_bench.rs (xorshift per prime), so the checksums must agree.
//   nvcc -O3 -arch=sm_90 -o matmul matmul.cu && ./matmul N PRIMES
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <vector>
#include <algorithm>

static bool is_prime(uint32_t n) {
    if (n < 2) return false;
    for (uint32_t d = 2; (uint64_t)d * d <= n; d++) if (n % d == 0) return false;
    return true;
}

__device__ __forceinline__ int32_t center(uint32_t a, uint32_t m) {
    return a > (m >> 1) ? (int32_t)(a - m) : (int32_t)a;
}

__device__ __forceinline__ long long fold(long long x, int32_t t) {
    return (x >> 32) * (long long)t + (long long)(uint32_t)x;
}

__global__ void matmul(uint32_t *out, const uint32_t *a, const uint32_t *b, const uint32_t *moduli,
                       uint32_t n, uint32_t k, uint32_t p) {
    __shared__ __align__(16) int32_t sa[16 * 68];
    __shared__ __align__(16) int32_t sb[16 * 64];
    size_t c = blockIdx.z;
    uint32_t m = moduli[c];
    int32_t t = center((uint32_t)((1ull << 32) % m), m);
    a += c * n * k; b += c * k * p; out += c * n * p;
    uint32_t tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    uint32_t row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    long long acc[4][4] = {};
    for (uint32_t k0 = 0; k0 < k; k0 += 16) {
        for (uint32_t q = 0; q < 4; q++) {
            uint32_t e = tid + 256 * q;
            uint32_t r = e / 16, kk = e % 16, gi = row0 + r, gk = k0 + kk;
            sa[kk * 68 + r] = gi < n && gk < k ? center(a[(size_t)gi * k + gk], m) : 0;
            kk = e / 64; uint32_t col = e % 64, gj = col0 + col; gk = k0 + kk;
            sb[kk * 64 + col] = gk < k && gj < p ? center(b[(size_t)gk * p + gj], m) : 0;
        }
        __syncthreads();
#pragma unroll
        for (uint32_t kk = 0; kk < 16; kk++) {
            int4 av = *(const int4 *)&sa[kk * 68 + ty * 4];
            int4 bv = *(const int4 *)&sb[kk * 64 + tx * 4];
            int32_t x[4] = {av.x, av.y, av.z, av.w}, y[4] = {bv.x, bv.y, bv.z, bv.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += (long long)x[i] * y[j];
            if (kk % 4 == 3)
#pragma unroll
                for (int i = 0; i < 4; i++)
#pragma unroll
                    for (int j = 0; j < 4; j++) acc[i][j] = fold(acc[i][j], t);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            uint32_t gi = row0 + ty * 4 + i, gj = col0 + tx * 4 + j;
            if (gi < n && gj < p) {
                long long r = acc[i][j] % (long long)m;
                out[(size_t)gi * p + gj] = (uint32_t)(r < 0 ? r + m : r);
            }
        }
}

#define CK(x) do { cudaError_t err_ = (x); if (err_ != cudaSuccess) { printf("CUDA error %s at %d\n", cudaGetErrorString(err_), __LINE__); exit(1); } } while (0)

static std::vector<uint32_t> xorshift(size_t len, uint32_t m, uint64_t x) {
    std::vector<uint32_t> v(len);
    for (auto &r : v) { x ^= x << 13; x ^= x >> 7; x ^= x << 17; r = (uint32_t)(x % m); }
    return v;
}

int main(int argc, char **argv) {
    uint32_t n = argc > 1 ? atoi(argv[1]) : 1024, primes = argc > 2 ? atoi(argv[2]) : 32;
    std::vector<uint32_t> mods;
    for (uint32_t q = 0x7FFFFFFFu; mods.size() < primes; q -= 2) if (is_prime(q)) mods.push_back(q);
    size_t nn = (size_t)n * n;
    std::vector<uint32_t> ha, hb;
    for (uint32_t c = 0; c < primes; c++) {
        auto x = xorshift(nn, mods[c], 0x12345678ull + c), y = xorshift(nn, mods[c], 0x87654321ull + c);
        ha.insert(ha.end(), x.begin(), x.end()); hb.insert(hb.end(), y.begin(), y.end());
    }
    uint32_t *da, *db, *dc, *dm;
    CK(cudaMalloc(&da, ha.size() * 4)); CK(cudaMalloc(&db, hb.size() * 4));
    CK(cudaMalloc(&dc, ha.size() * 4)); CK(cudaMalloc(&dm, primes * 4));
    CK(cudaMemcpy(da, ha.data(), ha.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dm, mods.data(), primes * 4, cudaMemcpyHostToDevice));
    dim3 grid((n + 63) / 64, (n + 63) / 64, primes), block(16, 16);
    cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
    matmul<<<grid, block>>>(dc, da, db, dm, n, n, n); CK(cudaGetLastError()); CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < 7; r++) {
        cudaEventRecord(s);
        matmul<<<grid, block>>>(dc, da, db, dm, n, n, n);
        cudaEventRecord(e); CK(cudaEventSynchronize(e)); CK(cudaGetLastError());
        float t; cudaEventElapsedTime(&t, s, e); ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    std::vector<uint32_t> o(ha.size());
    CK(cudaMemcpy(o.data(), dc, o.size() * 4, cudaMemcpyDeviceToHost));
    uint64_t sum = 0; for (auto v : o) sum += v;
    double madds = (double)primes * n * n * n;
    printf("cuda_c matmul %u^3 x%u: median %.3f ms  %.3f T mul-add/s  checksum %llu\n",
           n, primes, ms[3], madds / (ms[3] * 1e-3) / 1e12, (unsigned long long)sum);
    return 0;
}
