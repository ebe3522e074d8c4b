// Driver of scripts/emulate-residual-kernels.sh for residual_abs_bins_f32: random inputs, the
// current kernel and the reference commit's, each run with a host thread per CUDA thread (the
// kernel has warp reductions, shuffles, shared memory and block barriers), blocks one after
// another. The two kernels may put a term in different bins (the current one adds a register
// window's values to the window's lowest field, shifted; the reference to each value's own
// field): what must agree is the exact sum the host forms, sum_E bins[E] 2^(E - 150), and the
// count. Each histogram is brought to a canonical form (a binary number, bit b of weight
// 2^(b - 149), through unsigned 128-bit carries), in which equal sums are equal vectors.
// Exits 1 at the first difference.
#include "kern.h"

// bins[1..255] as the binary digits of sum_E bins[E] 2^(E - 1) (units of 2^-149).
static std::vector<unsigned> canonical(const std::vector<unsigned long long>& bins) {
    std::vector<unsigned> digits;
    unsigned __int128 carry = 0;
    for (int e = 1; e < 256; ++e) {
        carry += bins[e];
        digits.push_back((unsigned)(carry & 1));
        carry >>= 1;
    }
    while (carry != 0) {
        digits.push_back((unsigned)(carry & 1));
        carry >>= 1;
    }
    return digits;
}

int main() {
    std::mt19937_64 rng(20261127);
    long cases = 0, values = 0;
    for (int t = 0; t < 400; ++t) {
        index_t n = 1 + rng() % 3000;
        if (t % 5 == 0) n = 1 + rng() % 9;
        std::vector<float> x(n);
        const int kind = t % 5;
        for (auto& v : x) {
            const unsigned r = rng() % 100;
            if (r < 5) {
                v = r < 3 ? 0.0f : -0.0f;
            } else if (kind == 0) {  // U(0, 1): almost every value in one window of 8 fields
                v = std::uniform_real_distribution<float>(0.f, 1.f)(rng);
            } else if (kind == 1) {  // fields all over the range, signs mixed
                v = std::ldexp(std::uniform_real_distribution<float>(1.f, 2.f)(rng), (int)(rng() % 250) - 125);
                if (rng() % 2) v = -v;
            } else if (kind == 2) {  // subnormals and the smallest normal fields
                unsigned bits = (unsigned)(rng() % (3u << 23)) | (rng() % 2 ? 0x80000000u : 0u);
                std::memcpy(&v, &bits, 4);
            } else if (kind == 3) {  // the largest fields, infinities and NaNs (skipped by both)
                unsigned bits = 0x7e000000u + (unsigned)(rng() % 0x01800000u) + (rng() % 2 ? 0x80000000u : 0u);
                std::memcpy(&v, &bits, 4);
            } else {  // two clusters far apart: the window holds one, the shared bins the other
                v = rng() % 2 ? std::uniform_real_distribution<float>(0.5f, 1.f)(rng)
                              : std::uniform_real_distribution<float>(1e20f, 1e21f)(rng);
            }
        }
        unsigned blocks[] = {32, 64, 256};
        unsigned block = blocks[rng() % 3];
        unsigned grid = 1 + (unsigned)(rng() % 6);
        std::vector<unsigned long long> now(257, 0), ref(257, 0);
        launch_threads({grid, 1, 1}, block, [&] { residual_abs_bins_f32(x.data(), n, now.data()); });
        launch_threads({grid, 1, 1}, block,
                       [&] { residual_abs_bins_f32_reference(x.data(), n, ref.data()); });
        if (now[0] != 0 || now[256] != ref[256] || canonical(now) != canonical(ref)) {
            printf("MISMATCH case %d n=%llu kind=%d block=%u grid=%u: counts %llu, %llu\n", t, n, kind, block,
                   grid, now[256], ref[256]);
            return 1;
        }
        ++cases;
        values += n;
    }
    printf("%ld cases, %ld values: exact sums (canonical form) and counts identical (current vs reference); "
           "seed 20261127\n",
           cases, values);
    return 0;
}
