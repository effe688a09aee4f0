// ptxgen's link step for the float functions of src/mathlib.cl (src/mathlib.rs): before libclc
// is linked, a program that calls float exp, exp2, exp10, log, log2, log10, sin, cos, pow, powr,
// tan, atan, atan2, asin, acos, tanh, sinh, cosh, log1p, expm1, cbrt, erf or erfc (scalar or vector)
// gets mathlib.cl's definitions instead of libclc's.
#include <llvm/IR/Module.h>
#include <llvm-c/Types.h>

#include "bridge.h"

using namespace llvm;

namespace {

// _Z<len><name> followed by a float or float-vector argument: f, or Dv<n>_f.
bool isMathlibBuiltin(StringRef n) {
  if (!n.consume_front("_Z")) return false;
  size_t digits = n.find_first_not_of("0123456789");
  unsigned len;
  if (digits == 0 || digits == StringRef::npos || n.substr(0, digits).getAsInteger(10, len) ||
      n.size() < digits + len)
    return false;
  StringRef name = n.substr(digits, len), args = n.substr(digits + len);
  static const char *const unaries[] = {"exp",  "exp2", "exp10", "log",  "log2",  "log10", "sin",
                                         "cos",  "tan",  "atan",  "asin", "acos",  "tanh",  "sinh",
                                         "cosh", "log1p", "expm1", "cbrt", "erf",  "erfc"};
  bool unary = false;
  for (const char *u : unaries) unary |= name == u;
  bool binary = name == "pow" || name == "powr" || name == "atan2";
  if (!unary && !binary) return false;
  if (args == (unary ? "f" : "ff")) return true;
  // Dv<n>_f, or Dv<n>_fS_ for two arguments of that type
  return args.consume_front("Dv") && args.consume_back(unary ? "_f" : "_fS_") &&
         !args.empty() && args.find_first_not_of("0123456789") == StringRef::npos;
}

bool usesMathlibBuiltins(const Module &M) {
  for (const Function &F : M)
    if (F.isDeclaration() && !F.use_empty() && isMathlibBuiltin(F.getName())) return true;
  return false;
}

} // namespace

extern "C" {

// 1 when M calls one of mathlib.cl's functions (pg_link_mathlib has work to do).
int pg_mathlib_used(LLVMModuleRef mref) {
  return guarded(nullptr, 0, "", [&] { return usesMathlibBuiltins(*unwrap(mref)) ? 1 : 0; });
}

// Links the functions M calls from mathlib.cl's bitcode (bc, len). Returns 0 ok, 1 failure (log
// says why).
int pg_link_mathlib(LLVMModuleRef mref, const char *bc, size_t len, char **log) {
  return guarded(log, 1, "internal error while linking the math built-ins", [&] {
    Module &M = *unwrap(mref);
    if (!usesMathlibBuiltins(M)) return 0;
    std::unique_ptr<Module> L = loadBuiltinLibrary(M, bc, len, "mathlib.cl", "math built-ins", log);
    if (!L || !linkBuiltinLibrary(M, std::move(L), "math built-ins", log)) return 1;
    return invalidIR(M, "linking the math built-ins", log) ? 1 : 0;
  });
}

} // extern "C"
