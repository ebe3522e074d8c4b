// Driver of scripts/emulate-residual-kernels.sh for residual_combine: random inputs, the current
// kernel and the reference commit's, each run block by block and thread by thread on the host
// (the kernel has no barriers, shuffles or shared memory). Half the cases give the current
// kernel D_F itself, half give it P0 (d_f null) to dequantize; the reference always gets D_F,
// which in the second half its own residual_dequantize makes from that P0 first. Exits 1 at the
// first output that differs in any bit or an element left unwritten (outputs start as NaN).
#include "kern.h"

// The operands the two combines share; the reference takes D_F, the current one D_F or P0.
struct Operands {
    index_t m, n, ld;
    const int *p1, *p2;
    const unsigned *ap, *ai, *bp, *bi;
    const signed char *av, *rb, *ra, *bv;
    const float *la, *lrb, *lra, *lb;
    int lax, rax;
};

static void reference(unsigned grid, unsigned block, const float* d_f, const Operands& o, float* d) {
    launch_sequential({grid, 1, 1}, block, [&] {
        residual_combine_reference(d_f, o.m, o.n, o.p1, o.ap, o.ai, o.av, o.rb, o.p2, o.ra, o.ld, o.bp, o.bi,
                                   o.bv, o.la, o.lrb, o.lra, o.lb, o.lax, o.rax, d);
    });
}

static void current(unsigned grid, unsigned block, const float* d_f, const int* p0, const Operands& o, float* d) {
    launch_sequential({grid, 1, 1}, block, [&] {
        residual_combine(d_f, p0, o.m, o.n, o.p1, o.ap, o.ai, o.av, o.rb, o.p2, o.ra, o.ld, o.bp, o.bi, o.bv, o.la,
                         o.lrb, o.lra, o.lb, o.lax, o.rax, d);
    });
}

// The reference's residual_dequantize: threads over columns, grid y over rows (3 per thread).
static void reference_dequantize(const int* p0, const Operands& o, float* d_f) {
    launch_sequential({(unsigned)((o.n + 255) / 256), (unsigned)((o.m + 2) / 3), 1}, 256,
                      [&] { residual_dequantize_reference(p0, o.m, o.n, o.la, o.lax, o.lb, o.rax, d_f); });
}

int main() {
    std::mt19937_64 rng(20261127);
    long cases = 0, elements = 0, changed = 0, from_p0 = 0;
    for (int t = 0; t < 3000; ++t) {
        index_t m = 1 + rng() % 40, n = 1 + rng() % 1200, k = 1 + rng() % 70;
        if (t % 7 == 0) n = 1 + rng() % 9;
        index_t ld = (k + 15) / 16 * 16;
        double density = (rng() % 4 == 0) ? 0.5 : ((rng() % 2) ? 0.05 : 0.001);
        std::uniform_real_distribution<float> U(-4.f, 4.f);
        bool give_p0 = t % 2 == 1;
        std::vector<float> d_f(m * n), dn(m * n, NAN), dref(m * n, NAN);
        std::vector<int> p0(m * n);
        for (auto& v : d_f) v = (rng() % 10 == 0) ? -0.0f : U(rng);
        for (auto& v : p0) v = (rng() % 10 == 0) ? 0 : (int)(rng() % 2000001) - 1000000;
        std::vector<signed char> rb(k * n), ra(m * ld);
        for (auto& v : rb) v = (signed char)((int)(rng() % 255) - 127);
        for (auto& v : ra) v = (signed char)((int)(rng() % 255) - 127);
        auto bern = [&]() { return std::uniform_real_distribution<double>(0, 1)(rng) < density; };
        // A random CSR of `lines` lines over k positions (A^r by rows, B^r by columns).
        auto random_csr = [&](index_t lines, std::vector<unsigned>& ptr, std::vector<unsigned>& idx,
                              std::vector<signed char>& val) {
            ptr.assign(1, 0);
            for (index_t l = 0; l < lines; ++l) {
                for (index_t c = 0; c < k; ++c)
                    if (bern()) {
                        idx.push_back(c);
                        val.push_back((signed char)((int)(rng() % 255) - 127));
                    }
                ptr.push_back(idx.size());
            }
        };
        std::vector<unsigned> ap, ai, bp, bi;
        std::vector<signed char> av, bv;
        random_csr(m, ap, ai, av);
        random_csr(n, bp, bi, bv);
        std::vector<int> p1(m * n), p2(m * n);
        for (auto& v : p1) v = (rng() % 3 == 0) ? 0 : (int)(rng() % 200001) - 100000;
        for (auto& v : p2) v = (rng() % 3 == 0) ? 0 : (int)(rng() % 200001) - 100000;
        int lax = (int)(rng() % 2 ? AXIS_ROWS : AXIS_TENSOR), rax = (int)(rng() % 2 ? AXIS_COLUMNS : AXIS_TENSOR);
        std::vector<float> la(m), lra(m), lrb(n), lb(n);
        std::uniform_real_distribution<float> S(0.5f, 300.f);
        for (auto* v : {&la, &lra}) for (auto& x : *v) x = S(rng);
        for (auto* v : {&lrb, &lb}) for (auto& x : *v) x = S(rng);
        bool dense1 = rng() % 3 == 0, dense2 = rng() % 3 == 0;
        unsigned blocks[] = {32, 64, 256};
        unsigned block = blocks[rng() % 3];
        unsigned grid = (rng() % 2) ? (unsigned)m : (unsigned)(1 + rng() % m);
        Operands o{m, n, ld,
                   dense1 ? p1.data() : nullptr, dense2 ? p2.data() : nullptr,
                   dense1 ? nullptr : ap.data(), dense1 ? nullptr : ai.data(),
                   dense2 ? nullptr : bp.data(), dense2 ? nullptr : bi.data(),
                   dense1 ? nullptr : av.data(), rb.data(), ra.data(), dense2 ? nullptr : bv.data(),
                   la.data(), lrb.data(), lra.data(), lb.data(), lax, rax};
        if (give_p0) {
            reference_dequantize(p0.data(), o, d_f.data());
            current(grid, block, nullptr, p0.data(), o, dn.data());
            ++from_p0;
        } else {
            current(grid, block, d_f.data(), nullptr, o, dn.data());
        }
        reference(grid, block, d_f.data(), o, dref.data());
        if (std::memcmp(dn.data(), dref.data(), m * n * sizeof(float)) != 0) {
            printf("MISMATCH case %d m=%llu n=%llu k=%llu block=%u grid=%u dense=%d,%d p0=%d\n", t, m, n, k, block,
                   grid, dense1, dense2, give_p0);
            return 1;
        }
        for (index_t e = 0; e < m * n; ++e) {
            if (std::isnan(dn[e])) {
                printf("unwritten element, case %d\n", t);
                return 1;
            }
            if (dn[e] != d_f[e]) ++changed;
        }
        ++cases;
        elements += m * n;
    }
    printf("%ld cases (%ld from P0), %ld elements bit-identical (current vs reference), %ld changed by a "
           "product; seed 20261127\n",
           cases, from_p0, elements, changed);
    return 0;
}
