// What the emulation drivers write for the CPU models' checks (their `dump` modes; read by
// examples/emulation/records.rs for examples/accessor_trsv_emulation.rs and
// examples/accessor_spmv_emulation.rs): one record
// line per vector, a tag and then its elements, floating-point values as the hexadecimal bits
// of their exact binary64 widening, integers in decimal.
#pragma once
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

template <class V>
static void dump_line(FILE* out, const char* tag, const V* v, uint64_t len) {
    fprintf(out, "%s", tag);
    for (uint64_t i = 0; i < len; ++i) {
        const double d = (double)v[i];
        uint64_t bits;
        std::memcpy(&bits, &d, sizeof bits);
        fprintf(out, " %016" PRIx64, bits);
    }
    fprintf(out, "\n");
}

static void dump_ints(FILE* out, const char* tag, const std::vector<int>& v) {
    fprintf(out, "%s", tag);
    for (const int i : v) fprintf(out, " %d", i);
    fprintf(out, "\n");
}
