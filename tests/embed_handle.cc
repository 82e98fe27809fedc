/* SPDX-License-Identifier: MIT */
// embed_handle.c compiled as C++: the same source is valid C11 and C++17/20/23,
// and make check builds it in both languages.
#include "embed_handle.c"
