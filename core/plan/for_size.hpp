// CARDFIT_FOR_SIZE: compile one function for size (clang's minsize, so the wasm build) in a file
// otherwise compiled for speed: text assembled once per plan, beside the hot paths of its file.
// core/CMakeLists.txt compiles whole files for size the same way (-Oz); this is for the functions
// of a hot file that are not hot themselves.
#pragma once

#if defined(__clang__)
#define CARDFIT_FOR_SIZE __attribute__((minsize))
#else
#define CARDFIT_FOR_SIZE
#endif
