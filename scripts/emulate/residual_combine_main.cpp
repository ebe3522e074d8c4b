// Driver of scripts/emulate-residual-kernels.sh: random inputs for residual_combine (the
// current kernel) and residual_combine_reference (the reference commit's), both run block by block and thread
// by thread on the host; exits 1 at the first output that differs in any bit or an element left
// unwritten (the outputs start as NaN).
#include "kern.h"
typedef void (*Kern)(const float*, index_t, index_t, const int*, const unsigned*, const unsigned*,
    const signed char*, const signed char*, const int*, const signed char*, index_t, const unsigned*,
    const unsigned*, const signed char*, const float*, const float*, const float*, const float*, int, int, float*);
static void launch(Kern k, unsigned grid, unsigned block, const float* d_f, index_t m, index_t n, const int* p1,
    const unsigned* ap, const unsigned* ai, const signed char* av, const signed char* rb, const int* p2,
    const signed char* ra, index_t ld, const unsigned* bp, const unsigned* bi, const signed char* bv,
    const float* la, const float* lrb, const float* lra, const float* lb, int lax, int rax, float* d) {
    gridDim = {grid, 1, 1}; blockDim = {block, 1, 1};
    for (unsigned bx = 0; bx < grid; ++bx) for (unsigned tx = 0; tx < block; ++tx) {
        blockIdx = {bx, 0, 0}; threadIdx = {tx, 0, 0};
        k(d_f, m, n, p1, ap, ai, av, rb, p2, ra, ld, bp, bi, bv, la, lrb, lra, lb, lax, rax, d);
    }
}
int main() {
    std::mt19937_64 rng(20261127);
    long cases = 0, elements = 0, nonzero = 0;
    for (int t = 0; t < 3000; ++t) {
        index_t m = 1 + rng() % 40, n = 1 + rng() % 1200, k = 1 + rng() % 70;
        if (t % 7 == 0) n = 1 + rng() % 9;
        index_t ld = (k + 15) / 16 * 16;
        double density = (rng() % 4 == 0) ? 0.5 : ((rng() % 2) ? 0.05 : 0.001);
        std::uniform_real_distribution<float> U(-4.f, 4.f);
        std::vector<float> d_f(m * n), dn(m * n, NAN), dold(m * n, NAN);
        for (auto& v : d_f) v = (rng() % 10 == 0) ? -0.0f : U(rng);
        std::vector<signed char> rb(k * n), ra(m * ld);
        for (auto& v : rb) v = (signed char)((int)(rng() % 255) - 127);
        for (auto& v : ra) v = (signed char)((int)(rng() % 255) - 127);
        auto bern = [&]() { return std::uniform_real_distribution<double>(0, 1)(rng) < density; };
        std::vector<unsigned> ap{0}, ai, bp{0}, bi; std::vector<signed char> av, bv;
        for (index_t i = 0; i < m; ++i) { for (index_t c = 0; c < k; ++c) if (bern()) { ai.push_back(c); av.push_back((signed char)((int)(rng() % 255) - 127)); } ap.push_back(ai.size()); }
        for (index_t j = 0; j < n; ++j) { for (index_t r = 0; r < k; ++r) if (bern()) { bi.push_back(r); bv.push_back((signed char)((int)(rng() % 255) - 127)); } bp.push_back(bi.size()); }
        std::vector<int> p1(m * n), p2(m * n);
        for (auto& v : p1) v = (rng() % 3 == 0) ? 0 : (int)(rng() % 200001) - 100000;
        for (auto& v : p2) v = (rng() % 3 == 0) ? 0 : (int)(rng() % 200001) - 100000;
        int lax = (int)(rng() % 2 ? 1 : 0), rax = (int)(rng() % 2 ? 2 : 0);
        std::vector<float> la(m), lra(m), lrb(n), lb(n);
        std::uniform_real_distribution<float> S(0.5f, 300.f);
        for (auto* v : {&la, &lra}) for (auto& x : *v) x = S(rng);
        for (auto* v : {&lrb, &lb}) for (auto& x : *v) x = S(rng);
        bool dense1 = rng() % 3 == 0, dense2 = rng() % 3 == 0;
        unsigned blocks[] = {32, 64, 256};
        unsigned block = blocks[rng() % 3];
        unsigned grid = (rng() % 2) ? (unsigned)m : (unsigned)(1 + rng() % m);
        const unsigned* ap_ = dense1 ? nullptr : ap.data();
        launch(residual_combine, grid, block, d_f.data(), m, n, dense1 ? p1.data() : nullptr, ap_, dense1 ? nullptr : ai.data(), dense1 ? nullptr : av.data(), rb.data(),
               dense2 ? p2.data() : nullptr, ra.data(), ld, dense2 ? nullptr : bp.data(), dense2 ? nullptr : bi.data(), dense2 ? nullptr : bv.data(),
               la.data(), lrb.data(), lra.data(), lb.data(), lax, rax, dn.data());
        launch(residual_combine_reference, grid, block, d_f.data(), m, n, dense1 ? p1.data() : nullptr, ap_, dense1 ? nullptr : ai.data(), dense1 ? nullptr : av.data(), rb.data(),
               dense2 ? p2.data() : nullptr, ra.data(), ld, dense2 ? nullptr : bp.data(), dense2 ? nullptr : bi.data(), dense2 ? nullptr : bv.data(),
               la.data(), lrb.data(), lra.data(), lb.data(), lax, rax, dold.data());
        if (memcmp(dn.data(), dold.data(), m * n * sizeof(float)) != 0) { printf("MISMATCH case %d m=%llu n=%llu k=%llu block=%u grid=%u dense=%d,%d\n", t, m, n, k, block, grid, dense1, dense2); return 1; }
        for (index_t e = 0; e < m * n; ++e) { if (std::isnan(dn[e])) { printf("unwritten element case %d\n", t); return 1; } if (dn[e] != d_f[e]) ++nonzero; }
        ++cases; elements += m * n;
    }
    printf("%ld cases, %ld elements bit-identical (current vs reference), %ld elements changed by a product; seed 20261127\n", cases, elements, nonzero);
    return 0;
}
