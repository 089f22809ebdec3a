internal import CXapian
