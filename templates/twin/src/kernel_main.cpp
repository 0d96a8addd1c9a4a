// twin: main of the kernel program.  Usage: kernel <run-file>
// Run-file directives (one a line, space separated; unknown ones are ignored):
//   block_dim N | ub_bytes N | l1_bytes N (default 512 KiB) | tiling PATH | tiling_key K | workspace BYTES | sys_workspace BYTES
//   input NAME PATH BYTES | output NAME PATH BYTES | trace PATH
//   (an input or output that is a tensor list, a DYNAMIC OpDef parameter, ends with
//    `list ELEM_BYTES SHAPE...`, one SHAPE (dims joined by `,`, `[]` for a scalar) per tensor: the file
//    holds the tensors one after another, and the kernel gets the list's descriptor, list_desc.h)
//   absent NAME  (an optional input the call leaves out, among the inputs at its place: a null argument)
//   l0a_bytes N | l0b_bytes N | l0c_bytes N | bt_bytes N | fb_bytes N  (cube buffers; A2 sizes if absent)
// Runs the kernel once per block index (kernel_blocks.cpp), writes outputs and the trace.
// Exit 0 ok, 2 bad run-file or I/O, 3 kernel fault.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>
#include "kernel_internal.h"
#include "../include/kernel/twin/list_desc.h"

extern "C" void twin_launch(uint8_t **args);

// The output-shape buffer: a GM allocation the launch shim passes after the outputs to a kernel that
// takes one parameter more than inputs, outputs, workspace and tiling (an op whose OpDef marks an output
// OutputShapeDependOnCompute writes the output's real shape there: ops-math's masked_select_v3 writes
// the rank and the element count as uint64). 1 KiB: room for 16 outputs of up to 7 axes, each a rank
// and its dims as uint64. Allocated before the launch (blocks may run on several threads).
static uint8_t *shape_out_buf = nullptr;
extern "C" uint8_t *twin_shape_out_buffer() { return shape_out_buf; }

namespace {

struct Tensor {
    std::string name, path;
    uint64_t bytes = 0;
    uint8_t *buf = nullptr;
    bool is_list = false;
    uint64_t elem_bytes = 0;
    std::vector<std::vector<uint64_t>> shapes; // a list's tensors
    std::vector<uint8_t *> parts;              // a list's tensors' GM buffers
    std::string ref;                           // an output that is this input's buffer (`ref NAME`)
    bool absent = false;                       // an optional input left out (`absent NAME`): a null argument
};

[[noreturn]] void die(const std::string &msg) {
    std::fprintf(stderr, "error: %s\n", msg.c_str());
    std::exit(2);
}

uint8_t *gm_alloc(uint64_t bytes, const std::string &name) {
    uint8_t *p = twin::gm_alloc(bytes, name.c_str());
    if (!p) die("out of memory allocating GM buffer " + name);
    return p;
}

bool read_file(const std::string &path, uint8_t *dst, uint64_t bytes, uint64_t *got) {
    FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    *got = std::fread(dst, 1, bytes, f);
    std::fclose(f);
    return true;
}

bool write_file(const std::string &path, const void *src, uint64_t bytes) {
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = std::fwrite(src, 1, bytes, f) == bytes;
    ok = (std::fclose(f) == 0) && ok;
    return ok;
}

// A tensor list: each tensor in a GM buffer of its own (so a read past one tensor's end is caught,
// as on the device where aclCreateTensorList gathers separate allocations), and the descriptor the
// kernel's parameter points at. An input's tensors are filled from its file (held in t.buf).
uint8_t *list_args(Tensor &t, bool is_input) {
    uint64_t off = 0;
    for (size_t i = 0; i < t.shapes.size(); i++) {
        uint64_t n = twin::list_tensor_bytes(t.shapes[i], t.elem_bytes);
        uint8_t *p = gm_alloc(n, t.name + "[" + std::to_string(i) + "]");
        if (is_input) std::memcpy(p, t.buf + off, n);
        t.parts.push_back(p);
        off += n;
    }
    std::vector<uint64_t> words = twin::list_desc_words(t.shapes, t.parts);
    uint8_t *desc = gm_alloc(words.size() * sizeof(uint64_t), t.name + " (list descriptor)");
    std::memcpy(desc, words.data(), words.size() * sizeof(uint64_t));
    return desc;
}

// An output list's tensors, back into one buffer in list order (the output file's layout).
void gather_list(Tensor &t) {
    uint64_t off = 0;
    for (size_t i = 0; i < t.shapes.size(); i++) {
        uint64_t n = twin::list_tensor_bytes(t.shapes[i], t.elem_bytes);
        std::memcpy(t.buf + off, t.parts[i], n);
        off += n;
    }
}

void call_twin_launch(void *args) { twin_launch(static_cast<uint8_t **>(args)); }

} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <run-file>\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) die(std::string("cannot read run-file ") + argv[1]);

    int64_t block_dim = 1;
    uint64_t ub_bytes = 196352, l1_bytes = 512u * 1024u, ws_bytes = 0, tiling_key = 0, sys_ws = 16u * 1024u * 1024u;
    uint64_t caps[5] = {0, 0, 0, 0, 0}; // L0A, L0B, L0C, BT, FB bytes (0: the A2 default, mem.h)
    std::string tiling_path, trace_path;
    std::vector<Tensor> inputs, outputs;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string d;
        if (!(ss >> d) || d[0] == '#') continue;
        if (d == "block_dim") ss >> block_dim;
        else if (d == "ub_bytes") ss >> ub_bytes;
        else if (d == "l1_bytes") ss >> l1_bytes;
        else if (d == "tiling") ss >> tiling_path;
        else if (d == "tiling_key") ss >> tiling_key;
        else if (d == "workspace") ss >> ws_bytes;
        else if (d == "sys_workspace") ss >> sys_ws;
        else if (d == "l0a_bytes") ss >> caps[0];
        else if (d == "l0b_bytes") ss >> caps[1];
        else if (d == "l0c_bytes") ss >> caps[2];
        else if (d == "bt_bytes") ss >> caps[3];
        else if (d == "fb_bytes") ss >> caps[4];
        else if (d == "trace") ss >> trace_path;
        else if (d == "absent") {
            Tensor t;
            if (!(ss >> t.name)) die("bad directive: " + line);
            t.absent = true;
            inputs.push_back(t);
        }
        else if (d == "input" || d == "output") {
            Tensor t;
            if (!(ss >> t.name >> t.path >> t.bytes)) die("bad directive: " + line);
            std::string kw;
            // `ref NAME` (outputs): an in-place update, the output is input NAME's own buffer, as CANN
            // passes one tensor for an input and an output of one name.
            ss >> kw;
            if (d == "output" && kw == "ref") {
                if (!(ss >> t.ref)) die("bad directive: " + line);
                kw.clear();
                ss >> kw;
            }
            if (!kw.empty()) {
                if (kw != "list" || !(ss >> t.elem_bytes) || t.elem_bytes == 0) die("bad directive: " + line);
                t.is_list = true;
                std::string sh;
                while (ss >> sh) {
                    std::vector<uint64_t> dims;
                    if (sh != "[]") {
                        std::istringstream ds(sh);
                        std::string dim;
                        while (std::getline(ds, dim, ','))
                            try { dims.push_back(std::stoull(dim)); } catch (...) { die("bad shape in: " + line); }
                    }
                    t.shapes.push_back(dims);
                }
                if (t.shapes.empty()) die("a list without tensors in: " + line);
                uint64_t total = 0;
                for (auto &dims : t.shapes) total += twin::list_tensor_bytes(dims, t.elem_bytes);
                if (total != t.bytes) die("the list's shapes hold " + std::to_string(total) + " bytes, not " + std::to_string(t.bytes) + ": " + line);
            }
            (d == "input" ? inputs : outputs).push_back(t);
        }
    }
    if (block_dim < 1 || block_dim > 65535) die("block_dim out of range: " + std::to_string(block_dim));
    if (ub_bytes < 32 || ub_bytes > (1u << 30)) die("ub_bytes out of range");
    if (l1_bytes < 32 || l1_bytes > (1u << 30)) die("l1_bytes out of range");

    twin::hw_set_caps(caps[0], caps[1], caps[2], caps[3], caps[4]);
    std::vector<uint8_t *> args;
    for (auto &t : inputs) {
        if (t.absent) {
            args.push_back(nullptr);
            continue;
        }
        t.buf = gm_alloc(t.bytes, t.name);
        uint64_t got = 0;
        if (!read_file(t.path, t.buf, t.bytes, &got)) die("cannot read input " + t.name + " from " + t.path);
        if (got < t.bytes) die("input " + t.name + ": file " + t.path + " has " + std::to_string(got) + " bytes, expected " + std::to_string(t.bytes));
        args.push_back(t.is_list ? list_args(t, true) : t.buf);
    }
    for (auto &t : outputs) {
        if (!t.ref.empty()) {
            const Tensor *in = nullptr;
            for (auto &i : inputs)
                if (i.name == t.ref && !i.absent) in = &i;
            if (!in || in->is_list || t.is_list || in->bytes != t.bytes)
                die("output " + t.name + ": `ref " + t.ref + "` names no input of its size");
            t.buf = in->buf;
        } else {
            t.buf = gm_alloc(t.bytes, t.name);
            // ASCEND_TWIN_OUTPUT_FILL=B: outputs start as bytes B, not zeros; two runs with two fills
            // show the bytes a kernel never writes (shape probes the sources do not serve).
            if (const char *fill = std::getenv("ASCEND_TWIN_OUTPUT_FILL"))
                std::memset(t.buf, std::atoi(fill) & 0xff, t.bytes);
        }
        args.push_back(t.is_list ? list_args(t, false) : t.buf);
    }
    shape_out_buf = gm_alloc(1024, "output shapes");
    args.push_back(gm_alloc(ws_bytes, "workspace"));
    std::vector<uint8_t> tiling_bytes;
    if (!tiling_path.empty()) {
        std::ifstream tf(tiling_path, std::ios::binary);
        if (!tf) die("cannot read tiling file " + tiling_path);
        tiling_bytes.assign(std::istreambuf_iterator<char>(tf), std::istreambuf_iterator<char>());
    }
    uint8_t *tiling = gm_alloc(tiling_bytes.size(), "tiling");
    if (!tiling_bytes.empty()) std::memcpy(tiling, tiling_bytes.data(), tiling_bytes.size());
    args.push_back(tiling);
    // The parameter area get_para_base() returns (CANN's kernel argument area, which the runtime lays
    // out as the argument addresses followed by the tiling data: ops-math's experimental/math/gcd reads
    // its tensors from slots 0..2 and its tiling from slot 5, after the five arguments). In GM, so a
    // kernel's reads of it are checked like any other.
    const uint64_t para_bytes = args.size() * sizeof(uint64_t) + tiling_bytes.size();
    twin::para_base = gm_alloc(para_bytes, "parameter area");
    for (size_t i = 0; i < args.size(); i++) {
        const uint64_t addr = (uint64_t)(uintptr_t)args[i];
        std::memcpy(twin::para_base + i * sizeof(uint64_t), &addr, sizeof addr);
    }
    if (!tiling_bytes.empty())
        std::memcpy(twin::para_base + args.size() * sizeof(uint64_t), tiling_bytes.data(), tiling_bytes.size());

    twin::Launch launch{call_twin_launch, args.data(), block_dim, ub_bytes, tiling_key, sys_ws, l1_bytes};
    twin::LaunchResult res = twin::run_blocks(launch);
    if (res.rc) std::fputs(res.err.c_str(), stderr);
    if (res.rc == 0) {
        for (auto &t : outputs)
            if (t.is_list) gather_list(t);
        for (auto &t : outputs)
            if (!write_file(t.path, t.buf, t.bytes)) die("cannot write output " + t.name + " to " + t.path);
    }
    if (!trace_path.empty() && !write_file(trace_path, res.trace.data(), res.trace.size()))
        die("cannot write trace to " + trace_path);
    if (res.rc) {
        std::fflush(stderr);
        _exit(res.rc); // blocks stopped at SyncAll still hold their threads
    }
    return 0;
}
