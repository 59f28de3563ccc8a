import { DynamicModule, Global, Module, type ValueProvider } from '@nestjs/common';
import type { UssdConfig } from '../config/ussd.config';
import { loadContent } from '../menus/content';
import { CountryLanguages, parseCountryLanguages } from '../menus/country-languages';
import { Languages, loadLanguages } from '../menus/languages';

/**
 * The screens' languages and the country table, read from the content files and the configuration when the app's
 * modules are declared, before Nest opens any connection: a broken file or table stops start-up instead of breaking
 * screens later, and leaves no Redis or PostgreSQL client open behind it (Nest closes nothing of an app whose
 * start-up failed).
 */
@Global()
@Module({})
export class LanguageTablesModule {
  static forRoot(
    config: Pick<UssdConfig, 'CONTENT_FILE' | 'LANGUAGE_BY_COUNTRY_CODE' | 'DEFAULT_LANGUAGE'>,
  ): DynamicModule {
    const shipped = loadLanguages();
    const languages = shipped.withInfoTexts(loadContent(config.CONTENT_FILE, shipped.codes));
    const providers: ValueProvider[] = [
      { provide: Languages, useValue: languages },
      {
        provide: CountryLanguages,
        useValue: parseCountryLanguages(
          config.LANGUAGE_BY_COUNTRY_CODE,
          config.DEFAULT_LANGUAGE,
          languages.codes,
        ),
      },
    ];
    return {
      module: LanguageTablesModule,
      providers,
      exports: providers.map((provider) => provider.provide),
    };
  }
}
