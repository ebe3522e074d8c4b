// Driver of scripts/emulate-accessor-kernels.sh: dot_blocks and spmv_ell of
// kernels/accessor_blas.cu against their reference versions (the kernels the devices
// bit-compared with the CPU models), for the pairs fp64/fp64, fp32/fp64 and fp32/fp32.
// - dot_blocks: grids of 1 to 8 blocks of 32 to 256 threads (the kernel reads its geometry;
//   small grids give each thread many terms, so every batch and partial-batch path runs) and
//   one case in the launcher's geometry (1024 blocks of 256 threads, several terms per
//   thread); x and y with values of mixed magnitude and sign and exact zeros. Each block's
//   partial sum is compared bit for bit.
// - spmv_ell: random ELL matrices (widths 0 to 40, rows of every length from empty to full,
//   padding anywhere in a row and its values NaN, so that a padding slot that reached an FMA
//   would show), alpha and beta among 0, 1 and random; both outputs (arithmetic format and
//   stored) compared bit for bit.
// Exits 1 at the first difference.
#include <cinttypes>
#include "kern.h"

template <class V>
static bool same_bits(const std::vector<V>& p, const std::vector<V>& q) {
    return p.size() == q.size() && std::memcmp(p.data(), q.data(), p.size() * sizeof(V)) == 0;
}

// Mixed magnitudes and signs, some exact zeros (signed): sums whose rounding depends on order.
static double draw(std::mt19937_64& rng) {
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    switch (rng() % 8) {
        case 0: return 0.0;
        case 1: return -0.0;
        case 2: return U(rng) * 1e8;
        case 3: return U(rng) * 1e-8;
        default: return U(rng);
    }
}

template <class St, class A>
static bool dot_case(std::mt19937_64& rng, unsigned blocks, unsigned threads, index_t n, const char* pair,
                     long& terms) {
    typedef typename St::S S;
    typedef typename A::T T;
    std::vector<S> x(n), y(n);
    for (index_t i = 0; i < n; ++i) {
        x[i] = (S)draw(rng);
        y[i] = (S)draw(rng);
    }
    std::vector<T> now(blocks, (T)NAN), before(blocks, (T)NAN);
    launch_threads({blocks, 1, 1}, threads, [&] { dot_blocks<St, A>(x.data(), y.data(), n, now.data()); });
    launch_threads({blocks, 1, 1}, threads,
                   [&] { dot_blocks_reference<St, A>(x.data(), y.data(), n, before.data()); });
    if (!same_bits(now, before)) {
        unsigned b = 0;
        while (std::memcmp(&now[b], &before[b], sizeof(T)) == 0) ++b;
        printf("MISMATCH dot_blocks %s n=%llu grid %u x %u: block %u's partial %a, reference %a\n", pair, n, blocks,
               threads, b, (double)now[b], (double)before[b]);
        return false;
    }
    terms += (long)n;
    return true;
}

template <class St, class A>
static bool ell_case(std::mt19937_64& rng, const char* pair, long& values) {
    typedef typename St::S S;
    typedef typename A::T T;
    const index_t rows = 1 + rng() % 700, cols = 1 + rng() % 300;
    index_t width = rng() % 41;
    if (rng() % 4 == 0) width = 8 * (rng() % 5);  // whole batches only
    std::vector<int> col(rows * width, -1);
    std::vector<S> val(rows * width, (S)NAN);
    for (index_t r = 0; r < rows; ++r) {
        const index_t len = width == 0 ? 0 : (rng() % 3 == 0 ? width : rng() % (width + 1));
        const bool scattered = rng() % 3 == 0;  // padding between entries, not only after them
        for (index_t k = 0, placed = 0; k < width && placed < len; ++k) {
            if (scattered && width - k > len - placed && rng() % 2) continue;
            col[k * rows + r] = (int)(rng() % cols);
            val[k * rows + r] = (S)draw(rng);
            ++placed;
        }
    }
    std::vector<S> x(cols), y0(rows);
    for (auto& v : x) v = (S)draw(rng);
    for (auto& v : y0) v = (S)draw(rng);
    const double choices[3] = {0.0, 1.0, draw(rng)};
    const T alpha = (T)choices[rng() % 3], beta = (T)choices[rng() % 3];
    std::vector<T> arith_now(rows, (T)NAN), arith_before(rows, (T)NAN);
    std::vector<S> stored_now(rows, (S)NAN), stored_before(rows, (S)NAN);
    const unsigned grid = (unsigned)((rows + 255) / 256);
    launch_sequential({grid, 1, 1}, 256, [&] {
        spmv_ell<St, A>(rows, width, col.data(), val.data(), x.data(), alpha, beta, y0.data(), arith_now.data(),
                        stored_now.data());
    });
    launch_sequential({grid, 1, 1}, 256, [&] {
        spmv_ell_reference<St, A>(rows, width, col.data(), val.data(), x.data(), alpha, beta, y0.data(),
                                  arith_before.data(), stored_before.data());
    });
    if (!same_bits(arith_now, arith_before) || !same_bits(stored_now, stored_before)) {
        index_t r = 0;
        while (r < rows && std::memcmp(&arith_now[r], &arith_before[r], sizeof(T)) == 0 &&
               std::memcmp(&stored_now[r], &stored_before[r], sizeof(S)) == 0)
            ++r;
        printf("MISMATCH spmv_ell %s rows=%llu width=%llu: row %llu gives %a, reference %a\n", pair, rows, width, r,
               (double)arith_now[r], (double)arith_before[r]);
        return false;
    }
    values += (long)rows;
    return true;
}

template <class Case>
static bool each_pair(int t, Case run) {
    switch (t % 3) {
        case 0: return run.template operator()<StoreF64, ArithF64>("fp64/fp64");
        case 1: return run.template operator()<StoreF32, ArithF64>("fp32/fp64");
        default: return run.template operator()<StoreF32, ArithF32>("fp32/fp32");
    }
}

int main() {
    std::mt19937_64 rng(20261127);
    long terms = 0, rows = 0;
    const unsigned widths[3] = {32, 64, 256};
    for (int t = 0; t < 90; ++t) {
        const unsigned blocks = 1 + (unsigned)(rng() % 8), threads = widths[rng() % 3];
        const index_t stride = (index_t)blocks * threads;
        // Up to 13 strides, so that threads run 0 to 3 whole batches of 4 and any partial one.
        const index_t n = 1 + rng() % (13 * stride);
        if (!each_pair(t, [&]<class St, class A>(const char* p) {
                return dot_case<St, A>(rng, blocks, threads, n, p, terms);
            }))
            return 1;
    }
    // The launcher's geometry (order.rs: 1024 blocks of 256 threads once n > 2^18).
    const index_t n = 3 * 262144 + 1 + rng() % 262144;
    if (!dot_case<StoreF32, ArithF64>(rng, 1024, 256, n, "fp32/fp64", terms)) return 1;
    printf("91 cases, %ld terms: dot_blocks bit-identical to the reference's partial sums; ", terms);
    for (int t = 0; t < 300; ++t)
        if (!each_pair(t, [&]<class St, class A>(const char* p) { return ell_case<St, A>(rng, p, rows); })) return 1;
    printf("300 matrices, %ld rows: spmv_ell bit-identical, arithmetic and stored; seed 20261127\n", rows);
    return 0;
}
