// ptxgen's link step for the sub-group built-ins (src/subgroups.cl, src/subgroups.rs).
//
// Before libclc is linked, a program that calls a sub-group built-in (get_sub_group_*,
// get_max_sub_group_size, get_num_sub_groups, get_enqueued_num_sub_groups, sub_group_*) gets
// the definitions it calls from subgroups.cl's bitcode (compiled once per process by the Rust
// side), "only needed", made internal and always_inline so that they vanish into the caller.
// Unlike the image built-ins they keep `convergent`: they are warp shuffles and votes.
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm-c/Types.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bridge.h"

using namespace llvm;

namespace {

// A sub-group built-in's mangled name: _Z<len>get_sub_group_..., _Z<len>sub_group_...,
// _Z22get_max_sub_group_sizev, _Z18get_num_sub_groupsv, _Z27get_enqueued_num_sub_groupsv.
bool isSubgroupBuiltin(StringRef n) {
  if (!n.starts_with("_Z")) return false;
  n = n.drop_front(2).ltrim("0123456789");
  return n.starts_with("sub_group_") || n.starts_with("get_sub_group_") ||
         n.starts_with("get_max_sub_group_size") || n.starts_with("get_num_sub_groups") ||
         n.starts_with("get_enqueued_num_sub_groups");
}

bool usesSubgroupBuiltins(const Module &M) {
  for (const Function &F : M)
    if (F.isDeclaration() && !F.use_empty() && isSubgroupBuiltin(F.getName())) return true;
  return false;
}

} // namespace

extern "C" {

// 1 when M calls a sub-group built-in (pg_link_subgroups has work to do).
int pg_subgroups_used(LLVMModuleRef mref) {
  return guarded(nullptr, 0, "", [&] {
    return usesSubgroupBuiltins(*unwrap(mref)) ? 1 : 0;
  });
}

// Links the sub-group built-ins M calls from subgroups.cl's bitcode (bc, len). Returns 0 ok,
// 1 failure (log says why).
int pg_link_subgroups(LLVMModuleRef mref, const char *bc, size_t len, char **log) {
  return guarded(log, 1, "internal error while linking the sub-group built-ins", [&] {
    Module &M = *unwrap(mref);
    if (!usesSubgroupBuiltins(M)) return 0;
    std::unique_ptr<Module> L = loadBuiltinLibrary(M, bc, len, "subgroups.cl", "sub-group built-ins", log);
    if (!L || !linkBuiltinLibrary(M, std::move(L), "sub-group built-ins", log)) return 1;
    return invalidIR(M, "linking the sub-group built-ins", log) ? 1 : 0;
  });
}

} // extern "C"
