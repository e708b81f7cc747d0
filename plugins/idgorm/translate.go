package idgorm

import (
	"gorm.io/gorm"
)

// keepDriverError wraps a dialector so that, with TranslateError on, the error GORM
// returns still carries the driver's error behind the translated one: errors.Is(err,
// gorm.ErrDuplicatedKey) holds, and runtime/uniq still finds the constraint.
type keepDriverError struct {
	gorm.Dialector
	translator gorm.ErrorTranslator
}

// Translate implements gorm.ErrorTranslator.
func (d keepDriverError) Translate(err error) error {
	t := d.translator.Translate(err)
	if t == nil || t == err {
		return t
	}
	return &translatedError{translated: t, driver: err}
}

// SavePoint forwards to the wrapped dialector, so nested transactions keep working.
func (d keepDriverError) SavePoint(tx *gorm.DB, name string) error {
	if s, ok := d.Dialector.(gorm.SavePointerDialectorInterface); ok {
		return s.SavePoint(tx, name)
	}
	return gorm.ErrUnsupportedDriver
}

// RollbackTo forwards to the wrapped dialector.
func (d keepDriverError) RollbackTo(tx *gorm.DB, name string) error {
	if s, ok := d.Dialector.(gorm.SavePointerDialectorInterface); ok {
		return s.RollbackTo(tx, name)
	}
	return gorm.ErrUnsupportedDriver
}

// translatedError is GORM's translation of a driver error, with the driver error kept.
type translatedError struct {
	translated, driver error
}

func (e *translatedError) Error() string { return e.translated.Error() }

// Unwrap returns both errors, so errors.Is and errors.As see each.
func (e *translatedError) Unwrap() []error { return []error{e.translated, e.driver} }
