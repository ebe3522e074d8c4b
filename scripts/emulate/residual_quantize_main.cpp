// Driver of scripts/emulate-residual-kernels.sh for residual_quantize: random operands and
// residuals (every scale axis, rounding rule, int8 and int4 ranges, with and without the
// residual's maxima, padded and unpadded rows), the current kernel and the reference's each
// run with one host thread per CUDA thread; exits 1 at the first integer or maximum that
// differs in any bit, or an integer left unwritten (the buffers start at -128, which the
// quantizer never writes).
#include "kern.h"
// The reference (17d998c) still counted saturations into a buffer nobody read (removed on
// 2026-11-27): this adapter gives it one.
static unsigned reference_saturations = 0;
static void reference_kernel(const float* x, index_t rows, index_t cols, const signed char* bq, index_t bld,
                             const float* bs, const float* s, int axis, int rule, int qmax, index_t ld,
                             signed char* q, float* ra) {
    residual_quantize_reference(x, rows, cols, bq, bld, bs, s, axis, rule, qmax, ld, q, ra,
                                &reference_saturations);
}
typedef void (*Kern)(const float*, index_t, index_t, const signed char*, index_t, const float*, const float*, int, int, int, index_t, signed char*, float*);
// One host thread per CUDA thread of a block, reused for every block (lanes of a warp stay
// in step through __reduce_max_sync's barrier; blocks share nothing but atomics).
static void launch(Kern k, dim3e grid, unsigned block, const float* x, index_t rows, index_t cols, const signed char* bq, index_t bld,
                   const float* bs, const float* s, int axis, int rule, int qmax, index_t ld, signed char* q, float* ra) {
    gridDim = grid; blockDim = {block, 1, 1};
    std::vector<std::unique_ptr<Warp>> warps; for (unsigned w = 0; w < block / 32; ++w) warps.emplace_back(new Warp);
    std::vector<std::thread> ts;
    for (unsigned t = 0; t < block; ++t) ts.emplace_back([&, t] {
        threadIdx = {t, 0, 0}; my_warp = warps[t / 32].get();
        for (unsigned by = 0; by < grid.y; ++by) for (unsigned bx = 0; bx < grid.x; ++bx) {
            blockIdx = {bx, by, 0};
            k(x, rows, cols, bq, bld, bs, s, axis, rule, qmax, ld, q, ra);
        }
    });
    for (auto& th : ts) th.join();
}
int main() {
    std::mt19937_64 rng(20261127);
    long cases = 0, values = 0;
    for (int t = 0; t < 160; ++t) {
        index_t rows = 1 + rng() % 90, cols = 1 + rng() % 600;
        int axis = (int)(rng() % 3), rule = (int)(rng() % 3), qmax = (rng() % 2) ? 127 : 7;
        bool with_base = rng() % 2, with_ramax = rng() % 2;
        index_t ld = (rng() % 2) ? cols : (cols + 15) / 16 * 16;
        index_t lines = axis == AXIS_ROWS ? rows : (axis == AXIS_COLUMNS ? cols : 1);
        std::uniform_real_distribution<float> U(-3.f, 3.f);
        std::vector<float> x(rows * cols), s(lines), bs(lines);
        for (auto& v : x) v = (rng() % 13 == 0) ? 0.0f : U(rng);
        for (index_t l = 0; l < lines; ++l) { s[l] = std::uniform_real_distribution<float>(1.f, 60.f)(rng); bs[l] = std::uniform_real_distribution<float>(1.f, 60.f)(rng); }
        index_t bld = cols + (rng() % 3) * 16;
        std::vector<signed char> bq(rows * bld);
        for (auto& v : bq) v = (signed char)((int)(rng() % 255) - 127);
        std::vector<signed char> qn(rows * ld, -128), qo(rows * ld, -128);
        std::vector<float> rn(lines, 0.f), ro(lines, 0.f);
        unsigned rpt = 1 + rng() % 20;
        dim3e grid{(unsigned)((cols + 255) / 256), (unsigned)std::min<index_t>((rows + rpt - 1) / rpt, 65535), 1};
        launch(residual_quantize, grid, 256, x.data(), rows, cols, with_base ? bq.data() : nullptr, bld, with_base ? bs.data() : nullptr, s.data(), axis, rule, qmax, ld, qn.data(), with_ramax ? rn.data() : nullptr);
        launch(reference_kernel, grid, 256, x.data(), rows, cols, with_base ? bq.data() : nullptr, bld, with_base ? bs.data() : nullptr, s.data(), axis, rule, qmax, ld, qo.data(), with_ramax ? ro.data() : nullptr);
        if (qn != qo || std::memcmp(rn.data(), ro.data(), lines * 4) != 0) {
            printf("MISMATCH case %d rows=%llu cols=%llu axis=%d rule=%d base=%d ramax=%d grid.y=%u\n", t, rows, cols, axis, rule, with_base, with_ramax, grid.y); return 1; }
        for (index_t i = 0; i < rows; ++i) for (index_t j = 0; j < cols; ++j) if (qn[i * ld + j] == -128) { printf("unwritten, case %d\n", t); return 1; }
        ++cases; values += rows * cols;
    }
    printf("%ld cases, %ld values: integers and residual maxima bit-identical (current vs reference); seed 20261127\n", cases, values);
    return 0;
}
