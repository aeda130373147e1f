#pragma once
// The first column of the first row of SQL, as text: what the SQLite export tests read back.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

namespace limiter::testing {

inline std::string query(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  std::string value;
  if (sqlite3_step(statement) == SQLITE_ROW && sqlite3_column_text(statement, 0))
    value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
  sqlite3_finalize(statement);
  return value;
}

}  // namespace limiter::testing
