// Driver of scripts/emulate-accessor-kernels.sh: dot_blocks, spmv_ell, spmv_csr and gemv_t of
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
// `accessor_kernels_main dump FILE` instead writes SpMV products with the current kernels' outputs
// for the CPU model's check (scripts/emulate-accessor-models.sh).
#include <cinttypes>
#include "kern.h"
#include "records.h"

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

// The BLAS epilogue's inputs (alpha and beta among 0, 1 and random; y0) for a kernel with `len`
// outputs, and both versions' outputs (arithmetic format and stored), unset (NaN) at first.
template <class S, class T>
struct Epilogue {
    std::vector<S> y0;
    T alpha, beta;
    std::vector<T> arith_now, arith_before;
    std::vector<S> stored_now, stored_before;
    Epilogue(std::mt19937_64& rng, index_t len)
        : y0(len), arith_now(len, (T)NAN), arith_before(len, (T)NAN), stored_now(len, (S)NAN),
          stored_before(len, (S)NAN) {
        for (auto& v : y0) v = (S)draw(rng);
        const double choices[3] = {0.0, 1.0, draw(rng)};
        alpha = (T)choices[rng() % 3];
        beta = (T)choices[rng() % 3];
    }
    // Whether both outputs agree bit for bit; if not, prints `what` and the first element that
    // differs.
    bool same(const char* what) const {
        if (same_bits(arith_now, arith_before) && same_bits(stored_now, stored_before)) return true;
        index_t i = 0;
        while (i < arith_now.size() && std::memcmp(&arith_now[i], &arith_before[i], sizeof(T)) == 0 &&
               std::memcmp(&stored_now[i], &stored_before[i], sizeof(S)) == 0)
            ++i;
        printf("MISMATCH %s: element %llu gives %a, reference %a\n", what, i, (double)arith_now[i],
               (double)arith_before[i]);
        return false;
    }
};

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

// A random ELL matrix (column-major slots, column -1 and a NaN value for padding) and x.
template <class S>
struct EllDraw {
    index_t rows, cols, width;
    std::vector<int> col;
    std::vector<S> val, x;
    explicit EllDraw(std::mt19937_64& rng) : rows(1 + rng() % 700), cols(1 + rng() % 300), width(rng() % 41) {
        if (rng() % 4 == 0) width = 8 * (rng() % 5);  // whole batches only
        col.assign(rows * width, -1);
        val.assign(rows * width, (S)NAN);
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
        x.resize(cols);
        for (auto& v : x) v = (S)draw(rng);
    }
};

template <class St, class A>
static bool ell_case(std::mt19937_64& rng, const char* pair, long& values) {
    typedef typename St::S S;
    typedef typename A::T T;
    const EllDraw<S> m(rng);
    const index_t rows = m.rows, width = m.width;
    const std::vector<int>& col = m.col;
    const std::vector<S>&val = m.val, &x = m.x;
    Epilogue<S, T> out(rng, rows);
    const unsigned grid = (unsigned)((rows + 255) / 256);
    launch_sequential({grid, 1, 1}, 256, [&] {
        spmv_ell<St, A>(rows, width, col.data(), val.data(), x.data(), out.alpha, out.beta, out.y0.data(),
                        out.arith_now.data(), out.stored_now.data());
    });
    launch_sequential({grid, 1, 1}, 256, [&] {
        spmv_ell_reference<St, A>(rows, width, col.data(), val.data(), x.data(), out.alpha, out.beta, out.y0.data(),
                                  out.arith_before.data(), out.stored_before.data());
    });
    char what[96];
    snprintf(what, sizeof what, "spmv_ell %s rows=%llu width=%llu", pair, rows, width);
    if (!out.same(what)) return false;
    values += (long)rows;
    return true;
}

// spmv_csr: random CSR matrices (rows not a multiple of the 4 per group, rows of 0 to 70
// entries so that some take two or three steps of 32, empty rows anywhere), alpha and beta
// among 0, 1 and random, blocks of 8 warps in grids of every size; both outputs compared bit
// for bit.
// A random CSR matrix (column indices in any order, repeats allowed) and x; with `long_len`, row
// rows / 2 has that many entries (the CSR-stream kernel's rows across several chunks).
template <class S>
struct CsrDraw {
    index_t rows, cols;
    std::vector<int> row_ptr, col;
    std::vector<S> val, x;
    explicit CsrDraw(std::mt19937_64& rng, unsigned long_len = 0)
        : rows(1 + rng() % 700), cols(1 + rng() % 300), row_ptr(rows + 1, 0) {
        for (index_t r = 0; r < rows; ++r) {
            unsigned len = rng() % 5 == 0 ? 0 : (unsigned)(rng() % (rng() % 3 == 0 ? 71 : 28));
            if (long_len > 0 && r == rows / 2) len = long_len;
            for (unsigned k = 0; k < len; ++k) {
                col.push_back((int)(rng() % cols));
                val.push_back((S)draw(rng));
            }
            row_ptr[r + 1] = (int)col.size();
        }
        x.resize(cols);
        for (auto& v : x) v = (S)draw(rng);
    }
};

template <class St, class A>
static bool csr_case(std::mt19937_64& rng, const char* pair, long& rows_done) {
    typedef typename St::S S;
    typedef typename A::T T;
    const CsrDraw<S> m(rng);
    const index_t rows = m.rows;
    const std::vector<int>&row_ptr = m.row_ptr, &col = m.col;
    const std::vector<S>&val = m.val, &x = m.x;
    Epilogue<S, T> out(rng, rows);
    // The launcher's grid (8 warps per block, 8 groups of 4 rows per warp) or any smaller or
    // larger one, down to a single block: each warp takes groups grid-stride, so every grid
    // covers every row, and small grids give a warp many groups in its pipeline.
    const unsigned launcher = (unsigned)((rows + 255) / 256), most = (unsigned)((rows + 31) / 32);
    const unsigned grid = rng() % 2 ? launcher : 1 + (unsigned)(rng() % most);
    launch_threads({grid, 1, 1}, 256, [&] {
        spmv_csr<St, A>(rows, row_ptr.data(), col.data(), val.data(), x.data(), out.alpha, out.beta, out.y0.data(),
                        out.arith_now.data(), out.stored_now.data());
    });
    // The reference (2d0a702) takes one group per warp: its own launcher's grid.
    launch_threads({most, 1, 1}, 256, [&] {
        spmv_csr_reference<St, A>(rows, row_ptr.data(), col.data(), val.data(), x.data(), out.alpha, out.beta,
                                  out.y0.data(), out.arith_before.data(), out.stored_before.data());
    });
    char what[64];
    snprintf(what, sizeof what, "spmv_csr %s rows=%llu grid=%u", pair, rows, grid);
    if (!out.same(what)) return false;
    rows_done += (long)rows;
    return true;
}

// gemv_t (op(A) = A^T): random m x n (n often not a multiple of 32, so the last block has lanes
// past the last column; m from 0, with row counts per group that leave partial batches and
// partial 32-row stagings), G = 32 row groups as the launcher (and 8 or 16 sometimes),
// blocks of 32 x G threads; both outputs compared bit for bit.
template <class St, class A>
static bool gemv_t_case(std::mt19937_64& rng, const char* pair, long& columns) {
    typedef typename St::S S;
    typedef typename A::T T;
    const index_t m = rng() % 1400, n = 1 + rng() % 100;
    const unsigned groups = rng() % 4 == 0 ? 8u << (rng() % 2) : 32u;
    std::vector<S> a(m * n), x(m);
    for (auto& v : a) v = (S)draw(rng);
    for (auto& v : x) v = (S)draw(rng);
    Epilogue<S, T> out(rng, n);
    const dim3e grid{(unsigned)((n + 31) / 32), 1, 1}, block{32, groups, 1};
    launch_threads(grid, block, [&] {
        gemv_t<St, A>(m, n, out.alpha, a.data(), x.data(), out.beta, out.y0.data(), out.arith_now.data(),
                      out.stored_now.data());
    });
    launch_threads(grid, block, [&] {
        gemv_t_reference<St, A>(m, n, out.alpha, a.data(), x.data(), out.beta, out.y0.data(), out.arith_before.data(),
                                out.stored_before.data());
    });
    char what[96];
    snprintf(what, sizeof what, "gemv_t %s m=%llu n=%llu G=%u", pair, m, n, groups);
    if (!out.same(what)) return false;
    columns += (long)n;
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

// Which kernels to run: all, or those named on the command line (dot_blocks, spmv_ell, spmv_csr,
// gemv_t; a mutant's run names only its own). Each has its own generator, seeded from the
// printed seed and its position in this list, so that its cases do not depend on the others.
static const char* const KERNELS[4] = {"dot_blocks", "spmv_ell", "spmv_csr", "gemv_t"};
static constexpr unsigned long long SEED = 20261127;

static bool run_kernel(unsigned which) {
    std::mt19937_64 rng(SEED + which);
    long count = 0;
    switch (which) {
        case 0: {
            const unsigned widths[3] = {32, 64, 256};
            for (int t = 0; t < 90; ++t) {
                const unsigned blocks = 1 + (unsigned)(rng() % 8), threads = widths[rng() % 3];
                const index_t stride = (index_t)blocks * threads;
                // Up to 13 strides, so that threads run 0 to 3 whole batches of 4 and any partial one.
                const index_t n = 1 + rng() % (13 * stride);
                if (!each_pair(t, [&]<class St, class A>(const char* p) {
                        return dot_case<St, A>(rng, blocks, threads, n, p, count);
                    }))
                    return false;
            }
            // The launcher's geometry (order.rs: 1024 blocks of 256 threads once n > 2^18).
            const index_t n = 3 * 262144 + 1 + rng() % 262144;
            if (!dot_case<StoreF32, ArithF64>(rng, 1024, 256, n, "fp32/fp64", count)) return false;
            printf("91 cases, %ld terms: dot_blocks bit-identical to the reference's partial sums\n", count);
            return true;
        }
        case 1:
            for (int t = 0; t < 300; ++t)
                if (!each_pair(t, [&]<class St, class A>(const char* p) { return ell_case<St, A>(rng, p, count); }))
                    return false;
            printf("300 matrices, %ld rows: spmv_ell bit-identical, arithmetic and stored\n", count);
            return true;
        case 2:
            for (int t = 0; t < 45; ++t)
                if (!each_pair(t, [&]<class St, class A>(const char* p) { return csr_case<St, A>(rng, p, count); }))
                    return false;
            printf("45 matrices, %ld rows: spmv_csr bit-identical, arithmetic and stored\n", count);
            return true;
        default:
            for (int t = 0; t < 24; ++t)
                if (!each_pair(t, [&]<class St, class A>(const char* p) { return gemv_t_case<St, A>(rng, p, count); }))
                    return false;
            printf("24 matrices, %ld columns: gemv_t bit-identical, arithmetic and stored\n", count);
            return true;
    }
}

// One SpMV for the CPU model's check (`dump`): the matrix as CSR in the order its row chains
// take the entries (ELL: each row's slots in order, padding skipped), x, alpha, beta, y0, and
// both outputs of the current kernel.
template <class S, class T>
static void dump_spmv(FILE* out, const char* format, const char* pair, index_t rows, index_t cols,
                      const std::vector<int>& ptr, const std::vector<int>& col, const std::vector<S>& val,
                      const std::vector<S>& x, const Epilogue<S, T>& e) {
    fprintf(out, "spmv %s %s %llu %llu\n", format, pair, rows, cols);
    const T scalars[2] = {e.alpha, e.beta};
    dump_line(out, "scalars", scalars, 2);
    dump_ints(out, "ptr", ptr);
    dump_ints(out, "col", col);
    dump_line(out, "val", val.data(), val.size());
    dump_line(out, "x", x.data(), x.size());
    dump_line(out, "y0", e.y0.data(), e.y0.size());
    dump_line(out, "y", e.arith_now.data(), e.arith_now.size());
    dump_line(out, "ys", e.stored_now.data(), e.stored_now.size());
}

template <class St, class A>
static void dump_csr(FILE* out, std::mt19937_64& rng, const char* pair) {
    typedef typename St::S S;
    const CsrDraw<S> m(rng);
    Epilogue<S, typename A::T> e(rng, m.rows);
    launch_threads({(unsigned)((m.rows + 255) / 256), 1, 1}, 256, [&] {
        spmv_csr<St, A>(m.rows, m.row_ptr.data(), m.col.data(), m.val.data(), m.x.data(), e.alpha, e.beta,
                        e.y0.data(), e.arith_now.data(), e.stored_now.data());
    });
    dump_spmv(out, "csr", pair, m.rows, m.cols, m.row_ptr, m.col, m.val, m.x, e);
}

// The CSR-stream kernel in its launcher's geometry (a block of CSR_STREAM_THREADS rows, a thread
// per row); every other matrix with a row of 2000 to 6000 entries, which runs through two to four
// chunks at the default batch (2048 entries), and through 8 to 24 at a batch of 1.
template <class St, class A>
static void dump_csr_stream(FILE* out, std::mt19937_64& rng, const char* pair) {
    typedef typename St::S S;
    const unsigned long_len = rng() % 2 ? 2000 + (unsigned)(rng() % 4001) : 0;
    const CsrDraw<S> m(rng, long_len);
    Epilogue<S, typename A::T> e(rng, m.rows);
    const unsigned blocks = (unsigned)((m.rows + CSR_STREAM_THREADS - 1) / CSR_STREAM_THREADS);
    launch_threads({blocks, 1, 1}, CSR_STREAM_THREADS, [&] {
        spmv_csr_stream<St, A>(m.rows, m.row_ptr.data(), m.col.data(), m.val.data(), m.x.data(), e.alpha, e.beta,
                               e.y0.data(), e.arith_now.data(), e.stored_now.data());
    });
    dump_spmv(out, "csr_stream", pair, m.rows, m.cols, m.row_ptr, m.col, m.val, m.x, e);
}

template <class St, class A>
static void dump_ell(FILE* out, std::mt19937_64& rng, const char* pair) {
    typedef typename St::S S;
    const EllDraw<S> m(rng);
    Epilogue<S, typename A::T> e(rng, m.rows);
    launch_sequential({(unsigned)((m.rows + 255) / 256), 1, 1}, 256, [&] {
        spmv_ell<St, A>(m.rows, m.width, m.col.data(), m.val.data(), m.x.data(), e.alpha, e.beta, e.y0.data(),
                        e.arith_now.data(), e.stored_now.data());
    });
    std::vector<int> ptr(1, 0), col;
    std::vector<S> val;
    for (index_t r = 0; r < m.rows; ++r) {
        for (index_t k = 0; k < m.width; ++k)
            if (m.col[k * m.rows + r] >= 0) {
                col.push_back(m.col[k * m.rows + r]);
                val.push_back(m.val[k * m.rows + r]);
            }
        ptr.push_back((int)col.size());
    }
    dump_spmv(out, "ell", pair, m.rows, m.cols, ptr, col, val, m.x, e);
}

// `dump FILE`: 30 CSR, 30 ELL and 30 CSR-stream products (the three pairs in turn, the launchers'
// grids; the CSR-stream ones from a generator of their own, so that the others stay as they were) for
// examples/accessor_spmv_emulation.rs, which computes each with the CPU model and compares the
// bits: the kernels against the model itself, in any clone (the comparisons above need the
// reference commit from the git history).
static int dump(const char* path) {
    FILE* out = fopen(path, "w");
    if (!out) {
        perror(path);
        return 2;
    }
    std::mt19937_64 rng(SEED + 100);
    for (int t = 0; t < 30; ++t)
        each_pair(t, [&]<class St, class A>(const char* p) { return dump_csr<St, A>(out, rng, p), true; });
    for (int t = 0; t < 30; ++t)
        each_pair(t, [&]<class St, class A>(const char* p) { return dump_ell<St, A>(out, rng, p), true; });
    std::mt19937_64 stream_rng(SEED + 101);
    for (int t = 0; t < 30; ++t)
        each_pair(t, [&]<class St, class A>(const char* p) { return dump_csr_stream<St, A>(out, stream_rng, p), true; });
    fclose(out);
    printf("90 products written to %s (seeds %llu, %llu)\n", path, SEED + 100, SEED + 101);
    return 0;
}

int main(int argc, char** argv) {
    if (argc == 3 && std::strcmp(argv[1], "dump") == 0) return dump(argv[2]);
    printf("seed %llu (+ the kernel's position in dot_blocks, spmv_ell, spmv_csr, gemv_t)\n", SEED);
    for (unsigned which = 0; which < 4; ++which) {
        bool named = argc == 1;
        for (int i = 1; i < argc; ++i) named = named || std::strcmp(argv[i], KERNELS[which]) == 0;
        if (named && !run_kernel(which)) return 1;
    }
    return 0;
}
