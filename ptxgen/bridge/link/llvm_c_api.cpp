// Makes the link of anything that embeds ptxgen work with GNU ld (a native build on a Jetson, the
// aarch64 cross build), not only with the order-insensitive lld that rustup uses on x86-64.
//
// GNU ld takes an object out of a static library only for a symbol that is still undefined when
// it reaches that library. rustc puts ptxgen's native libraries (clang, LLVM) before the rlibs
// of ptxgen's dependencies, so LLVM C API functions used only by inkwell/llvm-sys (e.g.
// LLVMCreateTargetData, LLVMWriteBitcodeToMemoryBuffer) were never taken. This table, linked as a
// whole archive before the LLVM libraries (build.rs), refers to one function of each object file
// that holds the part of LLVM's C API inkwell may call, so those objects are all taken; --gc-sections
// then drops what nobody uses, the table included.
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Comdat.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Object.h>
#include <llvm-c/Support.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>

extern "C" {
__attribute__((used, visibility("hidden"))) const void *const ptxgen_llvm_c_api[] = {
    (const void *)&LLVMContextCreate,               // IR/Core.cpp
    (const void *)&LLVMCreateDIBuilder,             // IR/DebugInfo.cpp
    (const void *)&LLVMGetComdat,                   // IR/Comdat.cpp
    (const void *)&LLVMCreateTargetData,            // Target/Target.cpp
    (const void *)&LLVMCreateTargetMachine,         // Target/TargetMachineC.cpp
    (const void *)&LLVMWriteBitcodeToMemoryBuffer,  // Bitcode/Writer/BitWriter.cpp
    (const void *)&LLVMParseBitcodeInContext2,      // Bitcode/Reader/BitReader.cpp
    (const void *)&LLVMParseIRInContext,            // IRReader/IRReader.cpp
    (const void *)&LLVMLinkModules2,                // Linker/LinkModules.cpp
    (const void *)&LLVMVerifyModule,                // Analysis/Analysis.cpp
    (const void *)&LLVMRunPasses,                   // Passes/PassBuilderBindings.cpp
    (const void *)&LLVMCreateBinary,                // Object/Object.cpp
    (const void *)&LLVMGetErrorMessage,             // Support/Error.cpp
    (const void *)&LLVMInstallFatalErrorHandler,    // Support/ErrorHandling.cpp
    (const void *)&LLVMParseCommandLineOptions,     // Support/CommandLine.cpp
    (const void *)&LLVMLoadLibraryPermanently,      // Support/DynamicLibrary.cpp
};
}
