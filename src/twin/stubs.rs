// Stubs for what an op's sources use but none of them defines (`stub-undefined = true`).
// Owns: reading the undefined symbols out of a link that ran with `--warn-unresolved-symbols
// --no-demangle`, and writing the C++ unit that defines each as a stub. A called stub function (or a
// virtual function of a stubbed vtable) stops the program with an error that names it; nothing else
// changes, so an op whose sources reference another SoC's tiling path (ops-cv's arch35 `...Regbase`
// tilings, defined in files the 910B build does not list) runs as long as that path is not taken.
// Does not know how the compiler is run or where the unit is written (twin/mod.rs does).

/// The link flags of the first, probing link: unresolved references become warnings that name the
/// mangled symbol. Its program is not used (the loader would refuse it); the real link adds the stubs.
pub const PROBE_LINK_FLAGS: [&str; 2] = ["-Wl,--warn-unresolved-symbols", "-Wl,--no-demangle"];

/// The exit status of a program that called a stub.
pub const STUB_EXIT: i32 = 70;

/// The mangled symbols a probing link (PROBE_LINK_FLAGS) left undefined, in the order first met,
/// each once: the names in "undefined reference to `NAME'" lines.
pub fn undefined_symbols(link_output: &str) -> Vec<String> {
    let mut out: Vec<String> = vec![];
    for line in link_output.lines() {
        let Some(at) = line.find("undefined reference to ") else {
            continue;
        };
        let rest = line[at + "undefined reference to ".len()..].trim();
        let name = rest
            .trim_start_matches(['`', '\'', '\u{2018}'])
            .trim_end_matches(['`', '\'', '\u{2019}']);
        let ok = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$');
        if ok && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
    }
    out
}

/// Whether a mangled name is data rather than a function: a vtable, VTT, typeinfo or its name, or a
/// guard variable (Itanium C++ ABI special names `_ZTV`, `_ZTT`, `_ZTI`, `_ZTS`, `_ZGV`).
fn is_data(symbol: &str) -> bool {
    ["_ZTV", "_ZTT", "_ZTI", "_ZTS", "_ZGV"]
        .iter()
        .any(|p| symbol.starts_with(p))
}

/// Words in a stubbed vtable (offset to top, typeinfo, then virtual function slots): more than any
/// tiling class of the public repositories declares.
const VTABLE_WORDS: usize = 64;

/// The C++ unit that defines every symbol of `symbols` (mangled) as a stub. Functions stop the program
/// with an error naming them (demangled at run time); a vtable's slots do the same, naming the class;
/// other data (typeinfo, guard variables) is zero.
pub fn stub_unit(symbols: &[String]) -> String {
    let mut s = String::from(
        "// Written by cargo-ascend-tune for `stub-undefined = true`: what the op's sources use but none of\n\
         // them defines. Each function stops the program, naming itself, if it is ever called.\n\
         #include <cxxabi.h>\n\
         #include <cstdlib>\n\
         #include <unistd.h>\n\
         namespace {\n\
         void twin_stub_say(const char *s) { if (write(2, s, __builtin_strlen(s)) < 0) {} }\n\
         [[noreturn]] void twin_stub_called(const char *what, const char *mangled) {\n\
         \x20   int status = -1;\n\
         \x20   char *name = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);\n\
         \x20   twin_stub_say(\"error: the program called \");\n\
         \x20   twin_stub_say(what);\n\
         \x20   twin_stub_say(\" `\");\n\
         \x20   twin_stub_say(status == 0 && name ? name : mangled);\n\
         \x20   twin_stub_say(\"`, which none of the op's sources defines (ascend.toml has stub-undefined = true): \
         add the source that defines it to the op's `host` (or `kernel`) list\\n\");\n\
         \x20   _exit(",
    );
    s.push_str(&STUB_EXIT.to_string());
    s.push_str(");\n}\n}  // namespace\n");
    for (i, sym) in symbols.iter().enumerate() {
        if sym.starts_with("_ZTV") {
            // The class a vtable belongs to: `_ZTV<type>` names the type `_ZTS<type>` would.
            s.push_str(&format!(
                "extern \"C\" void twin_stub_vcall_{i}() {{ twin_stub_called(\"a virtual function of the class whose vtable is\", \"{sym}\"); }}\n\
                 extern \"C\" void *twin_stub_data_{i}[{VTABLE_WORDS}] __asm__(\"{sym}\");\n\
                 void *twin_stub_data_{i}[{VTABLE_WORDS}] = {{nullptr, nullptr{}}};\n",
                format!(", (void *)&twin_stub_vcall_{i}").repeat(VTABLE_WORDS - 2)
            ));
        } else if is_data(sym) {
            s.push_str(&format!(
                "extern \"C\" void *twin_stub_data_{i}[{VTABLE_WORDS}] __asm__(\"{sym}\");\n\
                 void *twin_stub_data_{i}[{VTABLE_WORDS}] = {{}};\n"
            ));
        } else {
            s.push_str(&format!(
                "extern \"C\" void twin_stub_fn_{i}() __asm__(\"{sym}\");\n\
                 extern \"C\" void twin_stub_fn_{i}() {{ twin_stub_called(\"the function\", \"{sym}\"); }}\n"
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What GNU ld 2.40 printed for a unit calling an undeclared-elsewhere function, constructing an
    /// object whose key function is missing, and calling that function.
    const LD: &str = "/usr/bin/ld: /tmp/cclWf5DN.o: warning: relocation against `_ZTVN8optiling1VE' in read-only section `.text'\n\
        /usr/bin/ld: /tmp/cclWf5DN.o: in function `main':\n\
        a.cpp:(.text+0x2a): warning: undefined reference to `_ZN8optiling13TilingRegbaseEPv'\n\
        /usr/bin/ld: a.cpp:(.text+0x39): warning: undefined reference to `_ZTVN8optiling1VE'\n\
        /usr/bin/ld: a.cpp:(.text+0x49): warning: undefined reference to `_ZN8optiling1V1fEv'\n\
        /usr/bin/ld: b.cpp:(.text+0x9): warning: undefined reference to `_ZN8optiling13TilingRegbaseEPv'\n\
        /usr/bin/ld: warning: creating DT_TEXTREL in a PIE\n";

    #[test]
    fn the_undefined_symbols_are_read_once_each_in_order() {
        assert_eq!(
            undefined_symbols(LD),
            [
                "_ZN8optiling13TilingRegbaseEPv",
                "_ZTVN8optiling1VE",
                "_ZN8optiling1V1fEv"
            ]
        );
        assert!(undefined_symbols("a.cpp:1:2: error: x was not declared").is_empty());
    }

    #[test]
    fn functions_trap_vtables_trap_in_every_slot_and_other_data_is_zero() {
        let syms: Vec<String> = ["_ZN2ns1fEv", "_ZTVN2ns1VE", "_ZTIN2ns1VE", "c_function"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let unit = stub_unit(&syms);
        assert!(unit.contains("extern \"C\" void twin_stub_fn_0() __asm__(\"_ZN2ns1fEv\");"));
        assert!(unit.contains("twin_stub_called(\"the function\", \"_ZN2ns1fEv\")"));
        assert!(unit.contains("void *twin_stub_data_1[64] __asm__(\"_ZTVN2ns1VE\");"));
        assert_eq!(
            unit.matches("(void *)&twin_stub_vcall_1").count(),
            VTABLE_WORDS - 2
        );
        assert!(unit.contains("void *twin_stub_data_2[64] = {};"));
        assert!(unit.contains("__asm__(\"c_function\")"));
        assert!(unit.contains(&format!("_exit({STUB_EXIT})")));
    }
}
