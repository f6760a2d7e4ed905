// Reading and writing the raw input/output files, as the samples' own data_utils.h does.
#pragma once
#include <cstdio>
#include <string>

inline bool ReadFile(const std::string& path, size_t fileSize, void* buffer, size_t bufferSize)
{
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return false;
    const size_t n = std::fread(buffer, 1, fileSize < bufferSize ? fileSize : bufferSize, f);
    std::fclose(f);
    return n == (fileSize < bufferSize ? fileSize : bufferSize);
}

inline bool WriteFile(const std::string& path, const void* buffer, size_t size)
{
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) return false;
    const size_t n = std::fwrite(buffer, 1, size, f);
    std::fclose(f);
    return n == size;
}
