// The clang front end (split from bridge.cpp): OpenCL C -> llvm::Module.
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>

#include "bridge.h"

using namespace llvm;

extern "C" {

// Returns 0 ok (*out set), 1 compile error, 2 bad cc1 arguments, 3 internal error.
int pg_compile(LLVMContextRef cref, const char *src, size_t srclen, const char *const *args,
               int nargs, const char *const *file_names, const char *const *file_data,
               const size_t *file_lens, int nfiles, LLVMModuleRef *out, char **log,
               char **deps) {
  std::string diagText;
  auto failed = [&](const char *what) {
    setLog(log, diagText + (what ? what : "internal error in the OpenCL front end") + "\n");
  };
  return guardedReport(3, failed, [&] {
    LLVMContext &C = *unwrap(cref);
    raw_string_ostream diagOS(diagText);
    IntrusiveRefCntPtr<clang::DiagnosticOptions> diagOpts = new clang::DiagnosticOptions();
    diagOpts->ShowColors = false;
    auto *printer = new clang::TextDiagnosticPrinter(diagOS, diagOpts.get());

    std::vector<const char *> argv(args, args + nargs);
    auto inv = std::make_shared<clang::CompilerInvocation>();
    {
      IntrusiveRefCntPtr<clang::DiagnosticIDs> ids(new clang::DiagnosticIDs());
      clang::DiagnosticsEngine argDiags(ids, diagOpts.get(), printer, false);
      bool ok = clang::CompilerInvocation::CreateFromArgs(*inv, argv, argDiags);
      argDiags.getClient()->finish();
      if (!ok || argDiags.hasErrorOccurred()) {
        diagOS.flush();
        setLog(log, diagText);
        delete printer;
        return 2;
      }
    }
    // In-memory files (embedded clang headers, clCompileProgram's headers) over the real FS
    // (for -I directories).
    IntrusiveRefCntPtr<vfs::InMemoryFileSystem> mem(new vfs::InMemoryFileSystem());
    for (int i = 0; i < nfiles; i++) {
      mem->addFile(file_names[i], 0,
                   MemoryBuffer::getMemBufferCopy(StringRef(file_data[i], file_lens[i]),
                                                  file_names[i]));
    }
    IntrusiveRefCntPtr<vfs::OverlayFileSystem> overlay(
        new vfs::OverlayFileSystem(vfs::getRealFileSystem()));
    overlay->pushOverlay(mem);

    std::unique_ptr<MemoryBuffer> input =
        MemoryBuffer::getMemBufferCopy(StringRef(src, srclen), "<source>");
    auto &fe = inv->getFrontendOpts();
    fe.Inputs.clear();
    fe.Inputs.emplace_back(input->getMemBufferRef(),
                           clang::InputKind(clang::Language::OpenCL));
    fe.DisableFree = false;

    clang::CompilerInstance ci;
    ci.setInvocation(inv);
    ci.createDiagnostics(printer, true);
    ci.createFileManager(overlay);
    ci.setVerboseOutputStream(diagOS);  // "N errors generated." goes to the log, not stderr
    clang::EmitLLVMOnlyAction act(&C);
    bool ok = ci.ExecuteAction(act);
    ci.getDiagnostics().getClient()->finish();
    diagOS.flush();
    std::unique_ptr<Module> M = ok ? act.takeModule() : nullptr;
    if (!ok || !M || ci.getDiagnostics().hasErrorOccurred()) {
      setLog(log, diagText);
      return 1;
    }
    setLog(log, diagText);
    // The real files the source read (#include through -I or the working directory): the
    // caches must notice when one changes.
    if (deps && ci.hasSourceManager()) {
      std::string d;
      clang::SourceManager &SM = ci.getSourceManager();
      for (auto it = SM.fileinfo_begin(); it != SM.fileinfo_end(); ++it) {
        StringRef name = it->first.getName();
        if (name.starts_with("/cudacl/") || name == "<source>") continue;
        d += name.str() + "\n";
      }
      *deps = dupString(d);
    }
    // OpenCL C follows C99, where a plain `inline` definition is only an inline definition: a
    // call that is not inlined then needs an external definition no module has ("Unresolved
    // extern function 'cdouble_sin'" with PyOpenCL's complex header on the H100). The front end
    // runs with -fgnu89-inline, so such bodies are emitted; make them linkonce_odr, so that they
    // merge when several compiled objects include the same header, and vanish when unused.
    for (Function &F : *M) {
      if (F.isDeclaration() || F.getMetadata("kernel_arg_addr_space")) continue;
      if (F.hasAvailableExternallyLinkage() ||
          (F.hasExternalLinkage() && F.hasFnAttribute(Attribute::InlineHint)))
        F.setLinkage(GlobalValue::LinkOnceODRLinkage);
    }
    *out = wrap(M.release());
    return 0;
  });
}

} // extern "C"
