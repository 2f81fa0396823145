# Arrow's C data interface (https://arrow.apache.org/docs/format/CDataInterface.html), declared once for the engine
# (which fills an ArrowArray for a usual group's record batch) and the line writers (which read a record batch's
# columns where pyarrow keeps them, through the capsules `__arrow_c_array__` gives). The C definitions are the
# interface's own, guarded by its macro as its header is.
cdef extern from *:
    """
    #ifndef ARROW_C_DATA_INTERFACE
    #define ARROW_C_DATA_INTERFACE
    struct ArrowSchema {
      const char* format; const char* name; const char* metadata; int64_t flags; int64_t n_children;
      struct ArrowSchema** children; struct ArrowSchema* dictionary; void (*release)(struct ArrowSchema*);
      void* private_data;
    };
    struct ArrowArray {
      int64_t length; int64_t null_count; int64_t offset; int64_t n_buffers; int64_t n_children;
      const void** buffers; struct ArrowArray** children; struct ArrowArray* dictionary;
      void (*release)(struct ArrowArray*); void* private_data;
    };
    #endif
    """
    struct ArrowSchema:
        const char* format
        const char* name
        int64_t n_children
        ArrowSchema** children

    struct ArrowArray:
        int64_t length
        int64_t null_count
        int64_t offset
        int64_t n_buffers
        int64_t n_children
        const void** buffers
        ArrowArray** children
        ArrowArray* dictionary
        void (*release)(ArrowArray*) noexcept nogil
        void* private_data
