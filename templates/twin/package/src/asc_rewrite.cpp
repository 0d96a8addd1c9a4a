// twin package: the source rewrite of the twin's ASC compiler (bin/twin-asc). An Ascend C single-source
// file (`.asc`) launches a kernel with the kernel launch symbol `kernel<<<numBlocks, l2ctrl, stream>>>(args)`
// (documented in "Compilation Using BiSheng Command Lines" and the Hello World example of the Ascend C
// programming guide, hiascend.com CANN 8.5/9.0, atlas_ascendc_10_00037 and atlas_ascendc_map_10_0005).
// A CPU compiler does not know that syntax, so this program writes a copy of the file in which every
// launch is a call of the twin's block runner:
//
//     kernel<T><<<n, nullptr, stream>>>(x, y)
//  -> ::twin_asc::launch("kernel<T>", (n), (stream), [&]() { kernel<T>(x, y); }, __FILE__, __LINE__)
//
// and a UB array declaration `__ubuf__ float x[n];` (the C API's) becomes a UB allocation (ub_array_decl),
// and nothing else changes: a `#line 1 "<file>"` directive comes first, and a launch spread over several
// lines is followed by as many newlines as it spanned, so the compiler's messages and the twin's fault
// reports name the user's file and line. Comments and string or character literals are skipped, so a
// `<<<` inside them is left alone. A `<<<` whose launch cannot be read (no kernel name before it, no
// `>>>` or no argument list after it) is an error naming the line: better than a baffling compile error.
//
// Usage: asc_rewrite IN OUT [DISPLAY_NAME]. Exit 0 on success, 1 on an unreadable launch, 2 on I/O errors.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

// Index just past the comment or literal starting at i, or i when none starts there.
size_t skip_non_code(const std::string &s, size_t i) {
    size_t n = s.size();
    if (s.compare(i, 2, "//") == 0) {
        while (i < n && s[i] != '\n') {
            i++;
        }
        return i;
    }
    if (s.compare(i, 2, "/*") == 0) {
        size_t end = s.find("*/", i + 2);
        return end == std::string::npos ? n : end + 2;
    }
    // Raw string literal R"delim( ... )delim", with an optional encoding prefix before the R.
    if (s[i] == 'R' && i + 1 < n && s[i + 1] == '"' && (i == 0 || !is_ident(s[i - 1]) || s[i - 1] == '8' ||
                                                        s[i - 1] == 'u' || s[i - 1] == 'U' || s[i - 1] == 'L')) {
        size_t open = s.find('(', i + 2);
        if (open == std::string::npos) {
            return n;
        }
        std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
        size_t end = s.find(close, open + 1);
        return end == std::string::npos ? n : end + close.size();
    }
    if (s[i] == '"' || (s[i] == '\'' && !(i > 0 && is_ident(s[i - 1])))) { // 1'000 is a digit separator
        char q = s[i];
        i++;
        while (i < n && s[i] != q && s[i] != '\n') {
            i += s[i] == '\\' ? 2 : 1;
        }
        return i < n ? i + 1 : n;
    }
    return i;
}

size_t line_of(const std::string &s, size_t at) {
    size_t line = 1;
    for (size_t i = 0; i < at && i < s.size(); i++) {
        line += s[i] == '\n';
    }
    return line;
}

// The text of s[from, to) as one line: comments become a space, newlines become spaces.
std::string flatten(const std::string &s, size_t from, size_t to) {
    std::string out;
    size_t i = from;
    while (i < to) {
        size_t j = skip_non_code(s, i);
        if (j != i) {
            if (s[i] == '/') {
                out += ' ';
            } else {
                for (size_t k = i; k < j && k < to; k++) {
                    out += s[k] == '\n' ? ' ' : s[k];
                }
            }
            i = j;
            continue;
        }
        out += s[i] == '\n' ? ' ' : s[i];
        i++;
    }
    return out;
}

// Walks the code of s from `from` (literals and comments skipped), keeping the bracket depth, and
// returns the first index where stop(index, depth before that character) holds; npos when none does.
template <class Stop> size_t scan_code(const std::string &s, size_t from, Stop stop) {
    int depth = 0;
    for (size_t i = from; i < s.size();) {
        size_t j = skip_non_code(s, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (stop(i, depth)) {
            return i;
        }
        char c = s[i];
        if (c == '(' || c == '[' || c == '{') {
            depth++;
        } else if (c == ')' || c == ']' || c == '}') {
            depth--;
        }
        i++;
    }
    return std::string::npos;
}

// The index of the bracket closing the one at `open` (`(`, `[`, `{`).
size_t matching(const std::string &s, size_t open) {
    return scan_code(s, open, [&](size_t i, int depth) {
        return depth == 1 && (s[i] == ')' || s[i] == ']' || s[i] == '}');
    });
}

// Splits s at the commas outside brackets, literals and comments.
std::vector<std::string> split_args(const std::string &s) {
    std::vector<std::string> out;
    size_t from = 0;
    for (;;) {
        size_t comma = scan_code(s, from, [&](size_t i, int depth) { return depth == 0 && s[i] == ','; });
        if (comma == std::string::npos) {
            out.push_back(s.substr(from));
            return out;
        }
        out.push_back(s.substr(from, comma - from));
        from = comma + 1;
    }
}

std::string trim(const std::string &s) {
    size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos) {
        return "";
    }
    size_t b = s.find_last_not_of(" \t\r\n");
    return s.substr(a, b - a + 1);
}

// Where the kernel expression ending just before `end` starts: `ns::kernel<A, B<C>>` (a qualified name,
// optionally with template arguments). npos when there is no name there.
size_t callee_start(const std::string &s, size_t end) {
    size_t i = end;
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t' || s[i - 1] == '\n' || s[i - 1] == '\r')) {
        i--;
    }
    if (i > 0 && s[i - 1] == '>') {
        int depth = 0;
        while (i > 0) {
            char c = s[i - 1];
            depth += c == '>' ? 1 : c == '<' ? -1 : 0;
            i--;
            if (depth == 0) {
                break;
            }
        }
        if (depth != 0) {
            return std::string::npos;
        }
        while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) {
            i--;
        }
    }
    size_t name_end = i;
    while (i > 0) {
        if (is_ident(s[i - 1])) {
            i--;
        } else if (i > 1 && s[i - 1] == ':' && s[i - 2] == ':') {
            i -= 2;
        } else {
            break;
        }
    }
    return i == name_end ? std::string::npos : i;
}

std::string escape(const std::string &s) {
    std::string out;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c;
    }
    return out;
}

// A UB array declaration `__ubuf__ TYPE NAME[EXPR];` (the C API's way to place data in the Unified Buffer,
// asc-devkit examples/02_simd_c_api) starting at `at`: the index of its `;`, or npos when the text there is
// not one (a parameter `__ubuf__ T *p`, a cast `(__ubuf__ T *)`, a multi-dimensional array). The twin's
// `__ubuf__ T *` values are UB byte addresses, so the array becomes a UB allocation:
//
//     __ubuf__ float x[n];  ->  __ubuf__ float *x = ::twin_asc::ub_array<float>((n), __FILE__, __LINE__);
size_t ub_array_decl(const std::string &s, size_t at) {
    size_t k = at + 8;
    while (k < s.size() && (is_ident(s[k]) || s[k] == ' ' || s[k] == '\t' || s[k] == ':' || s[k] == '<' || s[k] == '>')) {
        k++;
    }
    if (k >= s.size() || s[k] != '[') {
        return std::string::npos;
    }
    std::string head = trim(s.substr(at + 8, k - at - 8));
    size_t name_at = head.find_last_of(" \t");
    if (name_at == std::string::npos || trim(head.substr(0, name_at)).empty()) {
        return std::string::npos;
    }
    size_t close = matching(s, k);
    if (close == std::string::npos) {
        return std::string::npos;
    }
    size_t semi = close + 1;
    while (semi < s.size() && (s[semi] == ' ' || s[semi] == '\t')) {
        semi++;
    }
    return semi < s.size() && s[semi] == ';' ? semi : std::string::npos;
}

std::string ub_array_rewrite(const std::string &s, size_t at, size_t semi) {
    size_t open = s.find('[', at);
    size_t close = matching(s, open);
    std::string head = trim(s.substr(at + 8, open - at - 8));
    size_t name_at = head.find_last_of(" \t");
    std::string type = trim(head.substr(0, name_at));
    std::string name = trim(head.substr(name_at + 1));
    std::string out = "__ubuf__ " + type + " *" + name + " = ::twin_asc::ub_array<" + type + ">((" +
                      flatten(s, open + 1, close) + "), __FILE__, __LINE__);";
    for (size_t q = at; q <= semi; q++) {
        if (s[q] == '\n') {
            out += '\n';
        }
    }
    return out;
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 3) {
        std::cerr << "usage: asc_rewrite IN OUT [DISPLAY_NAME]\n";
        return 2;
    }
    std::string display = argc > 3 ? argv[3] : argv[1];
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::cerr << "twin-asc: cannot read " << argv[1] << "\n";
        return 2;
    }
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string s = buf.str();

    std::string out = "#line 1 \"" + escape(display) + "\"\n";
    size_t copied = 0; // s[0, copied) is in `out`, rewritten
    size_t launches = 0;
    for (size_t i = 0; i < s.size();) {
        size_t j = skip_non_code(s, i);
        if (j != i) {
            i = j;
            continue;
        }
        if (s.compare(i, 8, "__ubuf__") == 0 && (i == 0 || !is_ident(s[i - 1])) && i + 8 < s.size() &&
            !is_ident(s[i + 8])) {
            size_t end = ub_array_decl(s, i);
            if (end != std::string::npos) {
                out += s.substr(copied, i - copied);
                out += ub_array_rewrite(s, i, end);
                copied = end + 1;
                i = end + 1;
                continue;
            }
            i += 8;
            continue;
        }
        if (s.compare(i, 3, "<<<") != 0) {
            i++;
            continue;
        }
        auto fail = [&](const char *why) {
            std::cerr << display << ":" << line_of(s, i) << ": error: kernel launch `<<<...>>>`: " << why << "\n";
            return 1;
        };
        size_t start = callee_start(s, i);
        if (start == std::string::npos || start < copied) {
            return fail("no kernel name before `<<<`");
        }
        // The launch configuration runs to the first `>>>` outside brackets (a `;` first: no launch).
        size_t cfg_end = scan_code(s, i + 3, [&](size_t k, int depth) {
            return s[k] == ';' || (depth == 0 && s.compare(k, 3, ">>>") == 0);
        });
        if (cfg_end != std::string::npos && s[cfg_end] == ';') {
            cfg_end = std::string::npos;
        }
        if (cfg_end == std::string::npos) {
            return fail("no `>>>` closes the launch configuration");
        }
        size_t p = cfg_end + 3;
        while (p < s.size() && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r')) {
            p++;
        }
        if (p >= s.size() || s[p] != '(') {
            return fail("no argument list `(...)` after `>>>`");
        }
        size_t close = matching(s, p);
        if (close == std::string::npos) {
            return fail("the argument list is not closed");
        }
        std::string callee = trim(flatten(s, start, i));
        std::vector<std::string> cfg = split_args(flatten(s, i + 3, cfg_end));
        if (cfg.empty() || trim(cfg[0]).empty()) {
            return fail("the launch configuration names no block count");
        }
        std::string stream = cfg.size() >= 3 ? trim(cfg[2]) : "nullptr";
        std::string args = flatten(s, p + 1, close);
        out += s.substr(copied, start - copied);
        out += "::twin_asc::launch(\"" + escape(callee) + "\", (" + trim(cfg[0]) + "), (" + stream + "), [&]() { " + callee +
               "(" + args + "); }, __FILE__, __LINE__)";
        for (size_t q = start; q <= close; q++) {
            if (s[q] == '\n') {
                out += '\n';
            }
        }
        copied = close + 1;
        i = close + 1;
        launches++;
    }
    out += s.substr(copied);
    std::ofstream o(argv[2], std::ios::binary);
    if (!(o << out)) {
        std::cerr << "twin-asc: cannot write " << argv[2] << "\n";
        return 2;
    }
    return 0;
}
