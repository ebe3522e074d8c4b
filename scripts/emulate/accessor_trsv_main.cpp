// Driver of scripts/emulate-accessor-trsv.sh: random triangular systems (lower and upper, unit
// and non-unit diagonal, diagonally dominant and not, n from 1 to 300 and a few beyond 32
// blocks) for the pairs fp64/fp64, fp32/fp64 and fp32/fp32; the diagonal blocks inverted by
// trsv_invert, then solved by the one-block trsv_solve (bit-compared with the CPU model on the
// H100, 2026-11-24 and 2026-11-26) and by the pipelined trsv_rows, each block's 256 threads as
// host threads, blocks one after another in decreasing blockIdx (trsv_rows takes its block rows
// by ticket). Exits 1 at the first solution value, arithmetic or stored, that differs in any bit
// or is left unwritten, or when trsv_rows' counters do not end at the number of block rows.
#include <string>
#include <cinttypes>
#include "kern.h"
#include "records.h"

template <class V>
static bool same_bits(const std::vector<V>& p, const std::vector<V>& q) {
    return std::memcmp(p.data(), q.data(), p.size() * sizeof(V)) == 0;
}

// A random system of order n in the storage format S, drawn row by row, then b: entries U(-1, 1)
// (off the diagonal over n when diagonally dominant), a diagonal of magnitude 1 to 2 when
// dominant, else U(-1, 1) kept away from 0.
template <class S>
static void draw_system(std::mt19937_64& rng, index_t n, bool dominant, std::vector<S>& a, std::vector<S>& b) {
    std::uniform_real_distribution<double> U(-1.0, 1.0);
    a.assign(n * n, (S)0);
    b.assign(n, (S)0);
    for (index_t i = 0; i < n; ++i)
        for (index_t j = 0; j < n; ++j) {
            double v = U(rng);
            if (i == j) v = dominant ? (v < 0 ? -1.0 : 1.0) * (1.0 + std::fabs(v)) : (std::fabs(v) < 1e-3 ? 0.5 : v);
            else if (dominant) v /= (double)n;
            a[i * n + j] = (S)v;
        }
    for (auto& v : b) v = (S)U(rng);
}

// The diagonal blocks' inverses by trsv_invert (a warp per block), 32 x 32 each, zero where unset.
template <class St, class A>
static std::vector<typename A::T> invert_blocks(const std::vector<typename St::S>& a, index_t n, int upper, int unit) {
    const unsigned blocks = (unsigned)((n + 31) / 32);
    std::vector<typename A::T> inv(blocks * 32 * 32, (typename A::T)0);
    launch_sequential({blocks, 1, 1}, 32, [&] { trsv_invert<St, A>(n, a.data(), upper, unit, inv.data()); });
    return inv;
}

template <class St, class A>
static bool run_case(std::mt19937_64& rng, index_t n, int upper, int unit, bool dominant, const char* pair,
                     int t, bool concurrent) {
    typedef typename St::S S;
    typedef typename A::T T;
    std::vector<S> a, b;
    draw_system(rng, n, dominant, a, b);
    const unsigned blocks = (unsigned)((n + 31) / 32);
    const std::vector<T> inv = invert_blocks<St, A>(a, n, upper, unit);
    const T unset = (T)NAN;
    std::vector<T> x_one(n, unset);
    std::vector<S> s_one(n, (S)NAN);
    launch_threads({1, 1, 1}, 256, [&] {
        trsv_solve<St, A>(n, a.data(), b.data(), upper, inv.data(), x_one.data(), s_one.data());
    });
    // What the blocks of trsv_rows share: x, the stored x and the counters (in memory every
    // process sees when they run at once).
    T* x_shared = shared_alloc<T>(n);
    S* s_shared = shared_alloc<S>(n);
    unsigned* sync = shared_alloc<unsigned>(2);
    for (index_t i = 0; i < n; ++i) {
        x_shared[i] = unset;
        s_shared[i] = (S)NAN;
    }
    auto rows = [&] { trsv_rows<St, A>(n, a.data(), b.data(), upper, inv.data(), x_shared, s_shared, sync); };
    bool ran = true;
    if (concurrent) {
        ran = launch_forked(blocks, 256, rows, 120);
    } else {
        launch_threads({blocks, 1, 1}, 256, rows);
    }
    const std::vector<T> x_rows(x_shared, x_shared + n);
    const std::vector<S> s_rows(s_shared, s_shared + n);
    const unsigned counters[2] = {sync[0], sync[1]};
    munmap(x_shared, n * sizeof(T));
    munmap(s_shared, n * sizeof(S));
    munmap(sync, 2 * sizeof(unsigned));
    if (!ran) {
        printf("case %d %s n=%llu: a block of the concurrent launch did not finish (killed or failed)\n", t, pair, n);
        return false;
    }
    const bool ok = same_bits(x_one, x_rows) && same_bits(s_one, s_rows) && counters[0] == blocks &&
                    counters[1] == blocks;
    if (!ok) {
        index_t i = 0;
        while (i < n && std::memcmp(&x_one[i], &x_rows[i], sizeof(T)) == 0) ++i;
        printf("MISMATCH case %d %s n=%llu upper=%d unit=%d dominant=%d: first differing x at position %llu "
               "(one block %a, pipelined %a); counters %u %u of %u\n",
               t, pair, n, upper, unit, dominant, i, i < n ? (double)x_one[i] : 0.0,
               i < n ? (double)x_rows[i] : 0.0, counters[0], counters[1], blocks);
        return false;
    }
    // An element trsv_rows left unwritten keeps the sentinel, a positive quiet NaN; a NaN that
    // trsv_solve computes (a non-dominant system may overflow) is x86's default NaN, whose
    // sign bit is set: the bit comparison above tells them apart.
    return true;
}

// Phase 1: 240 systems, blocks one after another (decreasing blockIdx). Phase 2: 24 systems of
// at most 10 block rows, every block at once in a process of its own, released together: a
// block that reads a chunk of x before it is published reads the NaN the buffer starts with.
template <class Draw>
static bool phase(std::mt19937_64& rng, int count, bool concurrent, Draw draw_n, long& values) {
    for (int t = 0; t < count; ++t) {
        const index_t n = draw_n(t);
        const int upper = (int)(rng() % 2), unit = (int)(rng() % 2);
        const bool dominant = rng() % 4 != 0;
        bool ok = true;
        switch (t % 3) {
            case 0: ok = run_case<StoreF64, ArithF64>(rng, n, upper, unit, dominant, "fp64/fp64", t, concurrent); break;
            case 1: ok = run_case<StoreF32, ArithF64>(rng, n, upper, unit, dominant, "fp32/fp64", t, concurrent); break;
            default: ok = run_case<StoreF32, ArithF32>(rng, n, upper, unit, dominant, "fp32/fp32", t, concurrent); break;
        }
        if (!ok) return false;
        values += (long)n;
    }
    return true;
}

// One system for the CPU model's check (`dump`): diagonally dominant (finite results), the
// inverses by trsv_invert, the solution by the pipelined trsv_rows, blocks one after another.
template <class St, class A>
static void dump_case(FILE* out, std::mt19937_64& rng, index_t n, int upper, int unit, const char* pair) {
    typedef typename St::S S;
    typedef typename A::T T;
    std::vector<S> a, b;
    draw_system(rng, n, true, a, b);
    const unsigned blocks = (unsigned)((n + 31) / 32);
    const std::vector<T> inv = invert_blocks<St, A>(a, n, upper, unit);
    std::vector<T> x(n, (T)NAN);
    std::vector<S> xs(n, (S)NAN);
    unsigned sync[2] = {0, 0};
    launch_threads({blocks, 1, 1}, 256, [&] {
        trsv_rows<St, A>(n, a.data(), b.data(), upper, inv.data(), x.data(), xs.data(), sync);
    });
    fprintf(out, "case %s %llu %d %d %d\n", pair, n, upper, unit, TRSV_CHAIN_WAYS);
    dump_line(out, "a", a.data(), n * n);
    dump_line(out, "b", b.data(), n);
    dump_line(out, "inv", inv.data(), (index_t)blocks * 32 * 32);
    dump_line(out, "x", x.data(), n);
    dump_line(out, "xs", xs.data(), n);
}

// `dump FILE`: 32 systems (n from 1 to 300, every shape, the three pairs in turn) for
// examples/accessor_trsv_emulation.rs, which solves each with the CPU model in the order
// TRSV_CHAIN_WAYS names and compares the bits: the kernels against the model, not only the
// pipelined solve against the one-block one (a change to what both share, such as the product
// with the inverse, is invisible to that comparison).
static int dump(const char* path) {
    FILE* out = fopen(path, "w");
    if (!out) {
        perror(path);
        return 2;
    }
    std::mt19937_64 rng(20261128);
    const index_t sizes[8] = {1, 7, 32, 33, 64, 100, 257, 300};
    int cases = 0;
    for (const index_t n : sizes)
        for (int shape = 0; shape < 4; ++shape, ++cases) {
            const int upper = shape & 1, unit = shape >> 1;
            switch (cases % 3) {
                case 0: dump_case<StoreF64, ArithF64>(out, rng, n, upper, unit, "fp64/fp64"); break;
                case 1: dump_case<StoreF32, ArithF64>(out, rng, n, upper, unit, "fp32/fp64"); break;
                default: dump_case<StoreF32, ArithF32>(out, rng, n, upper, unit, "fp32/fp32"); break;
            }
        }
    fclose(out);
    printf("%d systems written to %s (TRSV_CHAIN_WAYS %d; seed 20261128)\n", cases, path, TRSV_CHAIN_WAYS);
    return 0;
}

// `accessor_trsv_main [sequential|concurrent]`: one phase (a mutant of the waits needs only the
// second); both by default. `accessor_trsv_main dump FILE`: the systems for the CPU model.
int main(int argc, char** argv) {
    const std::string only = argc > 1 ? argv[1] : "";
    if (only == "dump" && argc == 3) return dump(argv[2]);
    if (!only.empty() && only != "sequential" && only != "concurrent") {
        fprintf(stderr, "usage: %s [sequential|concurrent] | dump FILE\n", argv[0]);
        return 2;
    }
    std::mt19937_64 rng(20261127);
    long values = 0;
    if (only == "concurrent") rng.discard(1);  // its own draws; the phase does not depend on the first
    const bool sequential = only == "concurrent" || phase(rng, 240, false, [&](int t) {
        index_t n = 1 + rng() % 300;
        if (t % 40 == 0) n = 32 * (33 + rng() % 8) + rng() % 32;  // beyond 32 block rows
        if (t % 9 == 0) n = 32 * (1 + rng() % 6);                 // whole blocks only
        return n;
    }, values);
    if (!sequential) return 1;
    if (only != "concurrent")
        printf("240 systems, %ld solution values, blocks one after another: trsv_rows (pipelined) bit-identical "
               "to trsv_solve (one block), arithmetic and stored; seed 20261127\n", values);
    if (only == "sequential") return 0;
    long concurrent_values = 0;
    if (!phase(rng, 24, true, [&](int) { return (index_t)(33 + rng() % 288); }, concurrent_values)) return 1;
    printf("24 systems, %ld solution values, every block at once: bit-identical as well\n", concurrent_values);
    return 0;
}
