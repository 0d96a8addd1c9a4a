// twin: main of the kernel program.  Usage: kernel <run-file>
// Run-file directives (one a line, space separated; unknown ones are ignored):
//   block_dim N | ub_bytes N | tiling PATH | tiling_key K | workspace BYTES | sys_workspace BYTES
//   input NAME PATH BYTES | output NAME PATH BYTES | trace PATH
// Runs the kernel once per block index, sequentially, writes outputs and the trace.
// Exit 0 ok, 2 bad run-file or I/O, 3 kernel fault.
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <thread>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>
#include "kernel_internal.h"

extern "C" void twin_launch(uint8_t **args);

namespace {

struct Tensor {
    std::string name, path;
    uint64_t bytes = 0;
    uint8_t *buf = nullptr;
};

[[noreturn]] void die(const std::string &msg) {
    std::fprintf(stderr, "error: %s\n", msg.c_str());
    std::exit(2);
}

// GM buffers are 512 B aligned. Accesses are allowed up to the size rounded up to 32 B plus 32 B
// (the padding a device allocation has); past the requested size they draw a warning.
uint8_t *gm_alloc(uint64_t bytes, const char *name) {
    uint64_t cap = (bytes + 31) / 32 * 32 + 32;
    uint64_t backed = (cap + 511) / 512 * 512;
    void *p = std::aligned_alloc(512, backed);
    if (!p) die("out of memory allocating GM buffer " + std::string(name));
    std::memset(p, 0, backed);
    twin::gm_register(static_cast<uint8_t *>(p), bytes, cap, name);
    return static_cast<uint8_t *>(p);
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

volatile sig_atomic_t g_cur_block = 0;

void on_signal(int sig) {
    char buf[256];
    int n = std::snprintf(buf, sizeof buf,
                          "error: %s in kernel code (a raw pointer access outside the twin's checked API?)\n"
                          "  --> <unknown>:0 (block %d)\n",
                          sig == SIGSEGV ? "segmentation fault" : sig == SIGBUS ? "bus error" : sig == SIGFPE ? "arithmetic exception" : "signal",
                          (int)g_cur_block);
    if (n > 0) { ssize_t w = write(2, buf, (size_t)n); (void)w; }
    _exit(3);
}


// ---- block scheduler ---------------------------------------------------------------------------
// Every block runs on its own thread, but only one thread runs at a time (a baton), so the run is
// deterministic and blocks execute in index order. SyncAll hands the baton to the next block;
// after the last block the first one continues: each phase between two SyncAll runs all blocks in
// order, as they would all have to arrive before any continues on the device.
struct Block {
    int64_t idx = 0;
    std::thread th;
    bool started = false, done = false, at_sync = false, failed = false;
    std::string trace;
    std::string err;
};
std::mutex g_m;
std::condition_variable g_cv;
int64_t g_turn = -1;            // block allowed to run; -1 = the scheduler (main thread)
std::vector<Block> g_blocks;
struct RunCfg {
    uint8_t **args;
    uint64_t ub_bytes, ub_cap, tiling_key, sys_ws;
    int64_t block_dim;
    std::vector<uint8_t *> ubs;
} g_cfg;

void yield_to_main(int64_t me) {
    std::unique_lock<std::mutex> lk(g_m);
    g_turn = -1;
    g_cv.notify_all();
    g_cv.wait(lk, [me] { return g_turn == me; });
}

void block_thread(int64_t b) {
    {
        std::unique_lock<std::mutex> lk(g_m);
        g_cv.wait(lk, [b] { return g_turn == b; });
    }
    Block &B = g_blocks[(size_t)b];
    twin::BlockState &g = twin::g;
    std::memset(&g, 0, sizeof g);
    g.ub = g_cfg.ubs[(size_t)b];
    g.ub_bytes = (uint32_t)g_cfg.ub_bytes;
    g.block_idx = b;
    g.block_dim = g_cfg.block_dim;
    g.tiling_key = g_cfg.tiling_key;
    g.sys_workspace = g_cfg.sys_ws;
    g.mask0 = ~0ull;
    g.mask1 = ~0ull;
    std::memset(g.ub, 0, g_cfg.ub_cap);
    twin::g_trace.reserve(1 << 16);
    try {
        twin_launch(g_cfg.args);
    } catch (const twin::Fault &f) {
        char buf[64];
        std::snprintf(buf, sizeof buf, " (block %lld)", (long long)b);
        B.err = "error: " + f.msg + "\n  --> " + f.file + ":" + std::to_string(f.line) + buf + "\n";
        B.failed = true;
    } catch (const std::exception &e) {
        B.err = std::string("error: C++ exception in kernel: ") + e.what() + "\n  --> <unknown>:0 (block " + std::to_string(b) + ")\n";
        B.failed = true;
    }
    B.trace.swap(twin::g_trace);
    B.done = true;
    std::unique_lock<std::mutex> lk(g_m);
    g_turn = -1;
    g_cv.notify_all();
}

// Run block b until it finishes or reaches SyncAll.
void run_block(int64_t b) {
    Block &B = g_blocks[(size_t)b];
    B.at_sync = false;
    g_cur_block = (sig_atomic_t)b;
    std::unique_lock<std::mutex> lk(g_m);
    if (!B.started) {
        B.started = true;
        B.idx = b;
        lk.unlock();
        B.th = std::thread(block_thread, b);
        lk.lock();
    }
    g_turn = b;
    g_cv.notify_all();
    g_cv.wait(lk, [] { return g_turn == -1; });
}

} // namespace

namespace twin {
void sync_all(const char *api, const char *file, int line) {
    (void)api; (void)file; (void)line;
    g.sync_count++;
    Block &B = g_blocks[(size_t)g.block_idx];
    B.at_sync = true;
    yield_to_main(g.block_idx);
}
} // namespace twin

namespace {
} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <run-file>\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) die(std::string("cannot read run-file ") + argv[1]);

    int64_t block_dim = 1;
    uint64_t ub_bytes = 196352, ws_bytes = 0, tiling_key = 0, sys_ws = 16u * 1024u * 1024u;
    std::string tiling_path, trace_path;
    std::vector<Tensor> inputs, outputs;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ss(line);
        std::string d;
        if (!(ss >> d) || d[0] == '#') continue;
        if (d == "block_dim") ss >> block_dim;
        else if (d == "ub_bytes") ss >> ub_bytes;
        else if (d == "tiling") ss >> tiling_path;
        else if (d == "tiling_key") ss >> tiling_key;
        else if (d == "workspace") ss >> ws_bytes;
        else if (d == "sys_workspace") ss >> sys_ws;
        else if (d == "trace") ss >> trace_path;
        else if (d == "input" || d == "output") {
            Tensor t;
            if (!(ss >> t.name >> t.path >> t.bytes)) die("bad directive: " + line);
            (d == "input" ? inputs : outputs).push_back(t);
        }
    }
    if (block_dim < 1 || block_dim > 65535) die("block_dim out of range: " + std::to_string(block_dim));
    if (ub_bytes < 32 || ub_bytes > (1u << 30)) die("ub_bytes out of range");

    std::vector<uint8_t *> args;
    for (auto &t : inputs) {
        t.buf = gm_alloc(t.bytes, t.name.c_str());
        uint64_t got = 0;
        if (!read_file(t.path, t.buf, t.bytes, &got)) die("cannot read input " + t.name + " from " + t.path);
        if (got < t.bytes) die("input " + t.name + ": file " + t.path + " has " + std::to_string(got) + " bytes, expected " + std::to_string(t.bytes));
        args.push_back(t.buf);
    }
    for (auto &t : outputs) {
        t.buf = gm_alloc(t.bytes, t.name.c_str());
        args.push_back(t.buf);
    }
    uint8_t *ws = gm_alloc(ws_bytes, "workspace");
    args.push_back(ws);
    std::vector<uint8_t> tiling_bytes;
    if (!tiling_path.empty()) {
        std::ifstream tf(tiling_path, std::ios::binary);
        if (!tf) die("cannot read tiling file " + tiling_path);
        tiling_bytes.assign(std::istreambuf_iterator<char>(tf), std::istreambuf_iterator<char>());
    }
    uint8_t *tiling = gm_alloc(tiling_bytes.size(), "tiling");
    if (!tiling_bytes.empty()) std::memcpy(tiling, tiling_bytes.data(), tiling_bytes.size());
    args.push_back(tiling);

    uint64_t ub_cap = (ub_bytes + 63) / 64 * 64;
    g_cfg.args = args.data();
    g_cfg.ub_bytes = ub_bytes;
    g_cfg.ub_cap = ub_cap;
    g_cfg.tiling_key = tiling_key;
    g_cfg.sys_ws = sys_ws;
    g_cfg.block_dim = block_dim;

    std::signal(SIGSEGV, on_signal);
    std::signal(SIGBUS, on_signal);
    std::signal(SIGFPE, on_signal);

    g_blocks.resize((size_t)block_dim);
    int rc = 0;
    std::string err;
    // Phase loop: run every unfinished block in order until it ends or reaches SyncAll.
    for (int phase = 0; rc == 0; phase++) {
        bool any_sync = false, any_done_now = false;
        for (int64_t b = 0; b < block_dim && rc == 0; b++) {
            Block &B = g_blocks[(size_t)b];
            if (B.done) continue;
            if (!B.started) {
                if (g_cfg.ubs.size() <= (size_t)b) {
                    uint8_t *ub = static_cast<uint8_t *>(std::aligned_alloc(64, ub_cap));
                    if (!ub) die("out of memory allocating UB");
                    g_cfg.ubs.push_back(ub);
                }
            }
            run_block(b);
            if (B.failed) { rc = 3; err = B.err; break; }
            if (B.done) {
                any_done_now = true;
                if (B.th.joinable()) B.th.join();
                // a block without SyncAll never needs its UB again: reuse it for the next block
                if (!any_sync && phase == 0 && (size_t)b + 1 == g_cfg.ubs.size()) {
                    g_cfg.ubs.push_back(g_cfg.ubs[(size_t)b]);
                }
            } else {
                any_sync = true;
            }
        }
        if (rc) break;
        if (!any_sync) break;
        if (any_done_now) {
            for (int64_t b = 0; b < block_dim; b++)
                if (g_blocks[(size_t)b].done) {
                    err = "error: SyncAll: block " + std::to_string(b) +
                          " finished without reaching a SyncAll that other blocks wait at (deadlock on the device)\n"
                          "  --> <kernel>:0 (block " + std::to_string(b) + ")\n";
                    break;
                }
            rc = 3;
            break;
        }
    }
    if (rc) std::fputs(err.c_str(), stderr);

    std::string trace = "twin-trace 1\n";
    for (int64_t b = 0; b < block_dim; b++) {
        Block &B = g_blocks[(size_t)b];
        if (!B.started) break;
        trace += "block " + std::to_string(b) + " " + std::to_string(block_dim) + "\n";
        trace += B.trace;
        trace += "end\n";
    }
    if (rc == 0) {
        for (auto &t : outputs)
            if (!write_file(t.path, t.buf, t.bytes)) die("cannot write output " + t.name + " to " + t.path);
    }
    if (!trace_path.empty() && !write_file(trace_path, trace.data(), trace.size()))
        die("cannot write trace to " + trace_path);
    if (rc) {
        std::fflush(stderr);
        _exit(rc); // blocks stopped at SyncAll still hold their threads
    }
    for (auto &B : g_blocks)
        if (B.th.joinable()) B.th.join();
    return rc;
}
